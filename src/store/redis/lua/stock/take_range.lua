-- Takes up to n indexes from a range hash, promoting the pending segment once.
-- KEYS: queue, range, stamp. ARGV: n, this server's run_id if known ('': ask).
-- Returns {rollback ('' or 'old new'), retired, max_limit_id ('' if unknown),
-- recorded dispenser ('' if none), first, last, ...}; nothing is taken when the
-- shard records the queue dispenser.
local rollback, retired = verify(KEYS[1], KEYS[2], KEYS[3], ARGV[2])
local stamp = redis.call('HMGET', KEYS[3], 'limit', 'kind')
local out = {rollback, tostring(retired), stamp[1] or '', stamp[2] or ''}
if stamp[2] == 'queue' then return out end
local want = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[2], 'next', 'last', 'pending_first', 'pending_last')
if not f[1] then return out end
local nxt, last = tonumber(f[1]), tonumber(f[2])
local promoted = false
while want > 0 do
  if nxt > last then
    if f[3] and not promoted then
      nxt, last = tonumber(f[3]), tonumber(f[4])
      promoted = true
    else
      break
    end
  end
  local n = math.min(want, last - nxt + 1)
  out[#out + 1] = string.format('%.0f', nxt)
  out[#out + 1] = string.format('%.0f', nxt + n - 1)
  nxt = nxt + n
  want = want - n
end
if promoted then
  redis.call('HDEL', KEYS[2], 'pending_first', 'pending_last')
  redis.call('HSET', KEYS[2], 'last', string.format('%.0f', last))
end
redis.call('HSET', KEYS[2], 'next', string.format('%.0f', nxt))
return out
