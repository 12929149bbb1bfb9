-- KEYS: meta. ARGV: signature, capacity, now ms. Records or checks the signature.
local sig = redis.call('HGET', KEYS[1], 'signature')
if not sig then
  redis.call('HSET', KEYS[1], 'signature', ARGV[1], 'capacity', ARGV[2], 'created_ms', ARGV[3])
  return ''
end
return sig
