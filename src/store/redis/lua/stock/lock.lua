-- Takes a shard's refill lock, held on this server only (see `lock_value`),
-- and reads its stock under it.
-- KEYS: lock, queue, range, stamp, witness. ARGV: token, ttl ms, kind, this
-- server's run_id if known ('' or absent: ask).
-- Returns {1, stock (-1: missing), rollback, retired, witness ('': none),
-- recorded max_limit_id ('': unknown), the node the shard moved to ('':
-- this node stocks it; see seal.lua)}, or {0} when someone holds the lock.
if not redis.call('SET', KEYS[1], lock_value(ARGV[1], ARGV[4]), 'NX', 'PX', ARGV[2]) then return {0} end
local rollback, retired, _, limit, reset = verify(KEYS[2], KEYS[3], KEYS[4], ARGV[4])
local stock = -1
if not reset then
  local key = KEYS[2]
  if ARGV[3] == 'range' then key = KEYS[3] end
  stock = stock_of(key, ARGV[3])
end
local witness = redis.call('HMGET', KEYS[5], 'last', 'moved_to')
return {1, stock, rollback, retired, witness[1] or '', limit or '', witness[2] or ''}
