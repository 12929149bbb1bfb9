-- Carries the witness of a node a shard was sealed on (see seal.lua) into
-- this node: the witness is raised to it (never lowered), so the first
-- segment stocked here is taken above everything the other node stocked.
-- With ARGV[2] = 'lift' (a move admits the shard here), the seal here, if
-- any, is lifted in the same step, after the raise; with 'keep' (a take
-- follows the seal here) it is left, for it may send the shard on to a
-- third node, unless it is a seal for ARGV[3]: a take that found the shard
-- sealed both ways lifts the seal for the node it came from, and only that
-- one. The check and the lift are one step, so a seal a later move sets here
-- (for a third node) is never lifted by a decision made before it.
-- KEYS: witness. ARGV: the other node's witness ('': it had none), 'lift' or
-- 'keep', and with 'keep' the node whose seal here may be lifted ('': none).
-- Returns the node the shard stays sealed for here ('': none).
if ARGV[1] ~= '' then
  local seen = redis.call('HGET', KEYS[1], 'last')
  if (not seen) or tonumber(seen) < tonumber(ARGV[1]) then
    redis.call('HSET', KEYS[1], 'last', ARGV[1], 'token', 'carried')
  end
end
local sealed_for = redis.call('HGET', KEYS[1], 'moved_to')
if ARGV[2] == 'lift' or (sealed_for and sealed_for == ARGV[3]) then
  redis.call('HDEL', KEYS[1], 'moved_to')
  return ''
end
return sealed_for or ''
