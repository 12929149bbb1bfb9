-- KEYS: worker key. ARGV: our token, their holder, their token, ttl ms, now ms.
-- Hands a worker we claimed (or nobody's key) to the holder MySQL says has it.
local token = redis.call('HGET', KEYS[1], 'token')
if token and token ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'holder', ARGV[2], 'token', ARGV[3], 'since_ms', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
