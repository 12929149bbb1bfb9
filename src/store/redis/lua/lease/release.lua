-- Redis + MySQL: ends the lease in Redis.
-- KEYS: worker key, last, free. ARGV: token, worker, last ms. Returns 1, or 0 if not ours.
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('RPUSH', KEYS[3], ARGV[2])
return 1
