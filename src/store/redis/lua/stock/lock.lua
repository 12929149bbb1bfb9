-- Takes the refill locks of one or more shards, each held on this server only
-- (see `lock_value`), and reads each shard's stock under its lock. One script
-- serves a batch of shards: the per-call cost of a script (the master check,
-- the prelude) is paid once for all of them, and each shard is still locked
-- and read on its own (see `for_each_shard`).
-- KEYS: per shard, its lock, queue, range, stamp, witness. ARGV: ttl ms,
-- kind, this server's run_id if known ('': ask), then one token per shard.
-- Returns one answer per shard, in order: {1, stock (-1: missing), rollback,
-- retired, witness ('': none), recorded max_limit_id ('': unknown), the node
-- the shard moved to ('': this node stocks it; see seal.lua)}, {0} when
-- someone holds the lock, or an error for that shard alone.
local ttl, kind, run_id = ARGV[1], ARGV[2], ARGV[3]

local function lock(k, token)
  if not redis.call('SET', k[1], lock_value(token, run_id), 'NX', 'PX', ttl) then return {0} end
  local rollback, retired, _, limit, reset = verify(k[2], k[3], k[4], run_id)
  local stock = -1
  if not reset then
    local key = k[2]
    if kind == 'range' then key = k[3] end
    stock = stock_of(key, kind)
  end
  local witness = redis.call('HMGET', k[5], 'last', 'moved_to')
  return {1, stock, rollback, retired, witness[1] or '', limit or '', witness[2] or ''}
end

return for_each_shard(5, function(k, s) return lock(k, ARGV[3 + s]) end)
