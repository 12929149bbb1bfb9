-- Redis alone: forgets a namespace unless a worker is held or fenced past now.
-- KEYS: meta, free, last, lock. ARGV: worker prefix, now ms.
-- Returns {'deleted'} | {'unknown'} | {'in_use', held, latest fence ('' if none)}.
-- A namespace recreated later starts with a quarantine (its record is new).
local cap = tonumber(redis.call('HGET', KEYS[1], 'capacity') or '')
if not cap then return {'unknown'} end
local held = 0
for id = 0, cap - 1 do
  if redis.call('EXISTS', ARGV[1] .. id) == 1 then held = held + 1 end
end
local latest = nil
local fences = redis.call('HGETALL', KEYS[3])
for i = 2, #fences, 2 do
  local f = tonumber(fences[i])
  if f and (latest == nil or f > latest) then latest = f end
end
if held > 0 or (latest and latest > tonumber(ARGV[2])) then
  local shown = ''
  if latest then shown = string.format('%d', latest) end
  return {'in_use', tostring(held), shown}
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return {'deleted'}
