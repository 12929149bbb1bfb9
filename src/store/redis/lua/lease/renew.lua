-- Redis + MySQL: after MySQL renewed the lease, raises Redis's witness of the
-- fence and extends the worker's key.
-- KEYS: worker key, last. ARGV: token, ttl ms, worker, fence ms.
-- Returns 1 when the key was extended, 2 when the key is gone (Redis lost
-- it), 0 when another token holds it. The witness is raised in every case:
-- MySQL, not this key, says who holds the worker, and a higher fence only
-- costs a later start.
raise_fence(KEYS[2], ARGV[3], ARGV[4])
local token = redis.call('HGET', KEYS[1], 'token')
if not token then return 2 end
if token ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
