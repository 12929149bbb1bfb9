-- Redis alone: ends a lease; its fence becomes the last time unit issued.
-- KEYS: meta, worker key, last, free. ARGV: token, worker, last ms.
-- Returns 1, or 0 when the lease was not ours any more. A Redis that cannot
-- prove its state continuous changes nothing: the key expires, and the next
-- acquire or renewal starts the quarantine.
local incarnation = proven_incarnation(KEYS[1], KEYS[3])
if not incarnation then return 0 end
local lease = redis.call('HMGET', KEYS[2], 'token', 'incarnation')
if lease[1] ~= ARGV[1] or lease[2] ~= incarnation then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
note_fenced(KEYS[1])
redis.call('RPUSH', KEYS[4], ARGV[2])
return 1
