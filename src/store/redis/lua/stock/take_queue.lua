-- Takes up to n indexes from the front of a queue.
-- KEYS: queue, range, stamp. ARGV: n, this server's run_id if known ('': ask).
-- Returns {rollback ('' or 'old new'), retired, max_limit_id ('' if unknown),
-- recorded dispenser ('' if none), index...}; nothing is taken when the shard
-- records the range dispenser.
local rollback, retired = verify(KEYS[1], KEYS[2], KEYS[3], ARGV[2])
local stamp = redis.call('HMGET', KEYS[3], 'limit', 'kind')
local out = {rollback, tostring(retired), stamp[1] or '', stamp[2] or ''}
if stamp[2] == 'range' then return out end
local n = tonumber(ARGV[1])
if n == 1 then
  -- LPOP without a count works on every Redis version.
  local item = redis.call('LPOP', KEYS[1])
  if item then out[5] = item end
  return out
end
local items = redis.call('LRANGE', KEYS[1], 0, n - 1)
if #items > 0 then redis.call('LTRIM', KEYS[1], #items, -1) end
for i = 1, #items do out[i + 4] = items[i] end
return out
