-- Redis + MySQL: offers a free worker, which MySQL then grants or refuses.
-- KEYS: meta, free, last. ARGV: signature, capacity, worker prefix, holder,
-- token, ttl ms, fence ms, now ms.
-- Returns {'ok', worker, floor} | {'mismatch', recorded} | {'full'}; the floor
-- is Redis's witness of the worker's fence ('' when it has none).
local sig = redis.call('HGET', KEYS[1], 'signature')
if not sig then
  redis.call('HSET', KEYS[1], 'signature', ARGV[1], 'capacity', ARGV[2], 'created_ms', ARGV[8])
elseif sig ~= ARGV[1] then
  return {'mismatch', sig}
end
local fields = {'holder', ARGV[4], 'token', ARGV[5], 'since_ms', ARGV[8]}
local id = take_free(KEYS[2], ARGV[3], tonumber(ARGV[2]), function(id)
  return claim(ARGV[3], id, ARGV[6], fields)
end)
if not id then return {'full'} end
-- The witness: written before the holder issues a time unit up to its fence.
local floor = raise_fence(KEYS[3], id, ARGV[7])
return {'ok', id, floor or ''}
