-- KEYS: meta, free. ARGV: worker prefix, ttl ms.
-- Rebuilds the free list from unheld IDs; gives held keys without expiry one.
local cap = tonumber(redis.call('HGET', KEYS[1], 'capacity') or '0')
redis.call('DEL', KEYS[2])
local batch = {}
for id = 0, cap - 1 do
  local k = ARGV[1] .. id
  if redis.call('EXISTS', k) == 0 then
    batch[#batch + 1] = id
    if #batch == 1000 then
      redis.call('RPUSH', KEYS[2], unpack(batch))
      batch = {}
    end
  elseif redis.call('PTTL', k) == -1 then
    redis.call('PEXPIRE', k, ARGV[2])
  end
end
if #batch > 0 then redis.call('RPUSH', KEYS[2], unpack(batch)) end
return 1
