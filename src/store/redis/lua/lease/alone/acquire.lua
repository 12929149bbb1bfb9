-- Redis alone: grants a free worker.
-- KEYS: meta, free, last. ARGV: signature, capacity, worker prefix, holder,
-- token, ttl ms, fence ms, now ms, margin ms, replicas the client waits for,
-- the fewest replicas it knows the master has (see replicas_required).
-- Returns {'ok', worker, floor, quarantine end, replicas required} |
-- {'mismatch', recorded} | {'full'} | {'replicas', required, in sync}
-- (nothing granted: see replicas_refusal); the floor is the worker's
-- recorded fence ('' when none), the quarantine end '' when there never was
-- one. The grant counts only once the required replicas acknowledged it.
local refused, required = replicas_refusal(KEYS[1], tonumber(ARGV[10]), tonumber(ARGV[11]))
if refused then return refused end
local ttl = tonumber(ARGV[6])
local incarnation, quarantine = continuity(KEYS[1], KEYS[3], tonumber(ARGV[8]), ttl, tonumber(ARGV[9]),
  ARGV[3], KEYS[2], tonumber(ARGV[2]))
local meta = redis.call('HMGET', KEYS[1], 'signature', 'ttl_ms')
if not meta[1] then
  redis.call('HSET', KEYS[1], 'signature', ARGV[1], 'capacity', ARGV[2], 'created_ms', ARGV[8])
elseif meta[1] ~= ARGV[1] then
  return {'mismatch', meta[1]}
end
-- The longest TTL a holder uses: a later quarantine waits at least that long.
if tonumber(meta[2] or '0') < ttl then redis.call('HSET', KEYS[1], 'ttl_ms', ARGV[6]) end
local fields = {'holder', ARGV[4], 'token', ARGV[5], 'since_ms', ARGV[8], 'incarnation', incarnation}
local id = take_free(KEYS[2], ARGV[3], tonumber(ARGV[2]), function(id)
  return claim(ARGV[3], id, ARGV[6], fields)
end)
if not id then return {'full'} end
local floor = raise_fence(KEYS[3], id, ARGV[7])
note_fenced(KEYS[1])
local until_ms = ''
if quarantine > 0 then until_ms = string.format('%d', quarantine) end
return {'ok', id, floor or '', until_ms, required}
