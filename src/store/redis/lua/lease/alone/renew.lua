-- Redis alone: extends a lease and raises its fence, only while the token
-- holds the worker in the namespace's current incarnation.
-- KEYS: meta, worker key, last, free. ARGV: token, ttl ms, worker, fence ms,
-- now ms, margin ms, worker prefix, replicas the client waits for, the
-- fewest replicas it knows the master has (see replicas_required).
-- Returns {'renewed', replicas required} (it counts only once they
-- acknowledged it), {'lost', required}: another token holds the worker, its
-- key expired, or Redis cannot prove it kept the lease (see
-- alone/prelude.lua), or {'replicas', required, in sync}: nothing written
-- (see replicas_refusal).
local refused, required = replicas_refusal(KEYS[1], tonumber(ARGV[8]), tonumber(ARGV[9]))
if refused then return refused end
local ttl = tonumber(ARGV[2])
local incarnation, _, began = continuity(KEYS[1], KEYS[3], tonumber(ARGV[5]), ttl, tonumber(ARGV[6]),
  ARGV[7], KEYS[4], nil)
if began then return {'lost', required} end
local lease = redis.call('HMGET', KEYS[2], 'token', 'incarnation')
if lease[1] ~= ARGV[1] or lease[2] ~= incarnation then return {'lost', required} end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
raise_fence(KEYS[3], ARGV[3], ARGV[4])
note_fenced(KEYS[1])
return {'renewed', required}
