-- KEYS: worker key, last. ARGV: token, ttl ms, worker, fence ms.
-- Returns 1 when renewed, 2 when the key is gone (Redis lost it), 0 when
-- another token holds it.
local token = redis.call('HGET', KEYS[1], 'token')
if not token then return 2 end
if token ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local fence = redis.call('HGET', KEYS[2], ARGV[3])
if not fence or tonumber(fence) < tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
end
return 1
