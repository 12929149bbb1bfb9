-- KEYS: meta, free, last. ARGV: worker prefix, capacity to scan at least
-- (the durable record's, when Redis lost its own).
-- Returns {signature, capacity, free list, last hash, held: {id, holder, pttl}...}.
local meta = redis.call('HMGET', KEYS[1], 'signature', 'capacity')
local cap = tonumber(meta[2] or '0')
local scan = math.max(cap, tonumber(ARGV[2] or '0') or 0)
local held = {}
for id = 0, scan - 1 do
  local k = ARGV[1] .. id
  if redis.call('EXISTS', k) == 1 then
    held[#held + 1] = tostring(id)
    held[#held + 1] = redis.call('HGET', k, 'holder') or ''
    held[#held + 1] = tostring(redis.call('PTTL', k))
  end
end
return {meta[1] or '', tostring(cap), redis.call('LRANGE', KEYS[2], 0, -1), redis.call('HGETALL', KEYS[3]), held}
