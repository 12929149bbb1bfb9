-- Carries the witness of a node a shard was sealed on (see seal.lua) into
-- this node: the witness is raised to it (never lowered), so the first
-- segment stocked here is taken above everything the other node stocked.
-- With ARGV[2] = 'lift' (a move admits the shard here), the seal here, if
-- any, is lifted in the same step, after the raise; with 'keep' (a take
-- follows the seal here) it is left, for it may send the shard on to a
-- third node.
-- KEYS: witness. ARGV: the other node's witness ('': it had none), 'lift' or 'keep'.
-- Returns the node the shard stays sealed for here ('': none).
local role = string.match(redis.call('INFO', 'replication'), 'role:(%a+)') or '?'
if role ~= 'master' then
  return redis.error_reply('READONLY idgen: this server is not the master (role:' .. role .. ')')
end
if ARGV[1] ~= '' then
  local seen = redis.call('HGET', KEYS[1], 'last')
  if (not seen) or tonumber(seen) < tonumber(ARGV[1]) then
    redis.call('HSET', KEYS[1], 'last', ARGV[1], 'token', 'carried')
  end
end
if ARGV[2] == 'lift' then
  redis.call('HDEL', KEYS[1], 'moved_to')
  return ''
end
return redis.call('HGET', KEYS[1], 'moved_to') or ''
