-- Lets this node stock a shard again, once the shard's witness from the node
-- it leaves (sealed there first, see seal.lua) is carried in: the witness is
-- raised to it (never lowered) before the seal is lifted, in one step, so the
-- first segment stocked here is taken above everything the other node stocked.
-- KEYS: witness. ARGV: the other node's witness ('': it had none).
-- Returns ''.
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
redis.call('HDEL', KEYS[1], 'moved_to')
return ''
