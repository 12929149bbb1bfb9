-- Prelude of every lease script, after shared/master.lua.

-- Claims worker `id` for a holder unless its key exists; `fields` go into the
-- key beside the holder's token. Returns whether it was claimed.
local function claim(prefix, id, ttl_ms, fields)
  local k = prefix .. id
  if redis.call('EXISTS', k) == 1 then return false end
  redis.call('HSET', k, unpack(fields))
  redis.call('PEXPIRE', k, ttl_ms)
  return true
end

-- The first worker `try` claims: from the free list, else from a free list
-- rebuilt (when it is used up or missing) from the IDs whose keys do not exist.
-- Returns the worker as a string, or nil when every worker is held.
local function take_free(free, prefix, cap, try)
  while true do
    local id = redis.call('LPOP', free)
    if not id then break end
    local n = tonumber(id)
    if n and n >= 0 and n < cap and n == math.floor(n) and try(id) then return id end
  end
  local found = nil
  local batch = {}
  for id = 0, cap - 1 do
    if redis.call('EXISTS', prefix .. id) == 0 then
      if found == nil then
        found = id
      else
        batch[#batch + 1] = id
        if #batch == 1000 then
          redis.call('RPUSH', free, unpack(batch))
          batch = {}
        end
      end
    end
  end
  if #batch > 0 then redis.call('RPUSH', free, unpack(batch)) end
  if found == nil then return nil end
  found = string.format('%d', found)
  try(found)
  return found
end

-- Raises worker `id`'s recorded fence to `fence` (never lowers it); returns the
-- fence it had (nil: none).
local function raise_fence(last, id, fence)
  local had = redis.call('HGET', last, id)
  if not had or tonumber(had) < tonumber(fence) then
    redis.call('HSET', last, id, fence)
  end
  return had
end
