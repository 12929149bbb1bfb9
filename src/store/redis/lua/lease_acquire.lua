-- KEYS: meta, free, last. ARGV: signature, capacity, worker prefix, holder,
-- token, ttl ms, fence ms, now ms.
-- Returns {'ok', worker, floor} | {'mismatch', recorded} | {'full'}.
local sig = redis.call('HGET', KEYS[1], 'signature')
if not sig then
  redis.call('HSET', KEYS[1], 'signature', ARGV[1], 'capacity', ARGV[2], 'created_ms', ARGV[8])
elseif sig ~= ARGV[1] then
  return {'mismatch', sig}
end
local cap = tonumber(ARGV[2])
local function claim(id)
  local k = ARGV[3] .. id
  if redis.call('EXISTS', k) == 1 then return false end
  redis.call('HSET', k, 'holder', ARGV[4], 'token', ARGV[5], 'since_ms', ARGV[8])
  redis.call('PEXPIRE', k, ARGV[6])
  return true
end
local function grant(id)
  local floor = redis.call('HGET', KEYS[3], id)
  local fence = tonumber(ARGV[7])
  if not floor or tonumber(floor) < fence then
    redis.call('HSET', KEYS[3], id, ARGV[7])
  end
  return {'ok', tostring(id), floor or ''}
end
while true do
  local id = redis.call('LPOP', KEYS[2])
  if not id then break end
  local n = tonumber(id)
  if n and n >= 0 and n < cap and n == math.floor(n) and claim(id) then return grant(id) end
end
-- The free list is used up or missing: rebuild it from the IDs nobody holds.
local found = nil
local batch = {}
for id = 0, cap - 1 do
  if redis.call('EXISTS', ARGV[3] .. id) == 0 then
    if found == nil then
      found = id
    else
      batch[#batch + 1] = id
      if #batch == 1000 then
        redis.call('RPUSH', KEYS[2], unpack(batch))
        batch = {}
      end
    end
  end
end
if #batch > 0 then redis.call('RPUSH', KEYS[2], unpack(batch)) end
if found == nil then return {'full'} end
claim(tostring(found))
return grant(tostring(found))
