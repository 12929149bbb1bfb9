-- Prelude of the scripts of leases on Redis alone (no MySQL), after
-- lease/prelude.lua: the namespace's record (its meta hash) names the server
-- process (`run_id`), the replication history (`master_replid`) and the
-- incarnation of the namespace that every lease key was granted under.
--
-- Any of them differing, or the record missing, means Redis cannot prove it
-- kept the namespace's keys and fences since a holder last renewed (a restart,
-- an older snapshot, a lagging replica promoted, FLUSHALL): every worker may
-- still be held, up to a fence this dataset no longer shows. The first script
-- to see it records a new incarnation (so every lease granted before it is
-- lost), deletes the lease keys it finds (they prove nothing now, and would
-- keep their workers, their own holders' included, from being leased again)
-- and records a quarantine: no lease granted from now on issues a time unit
-- before the longest TTL the namespace allows, plus a margin, has passed.

local function server_info()
  local server = redis.call('INFO', 'server')
  return info_field(server, 'run_id') or '',
    info_field(replication, 'master_replid') or '',
    tonumber(info_field(server, 'server_time_usec') or '0')
end

-- The incarnation the record names, when it names this server and history;
-- nil when Redis cannot prove its state continuous.
local function proven_incarnation(meta)
  local run_id, replid = server_info()
  local rec = redis.call('HMGET', meta, 'run_id', 'replid', 'incarnation')
  if rec[1] == run_id and rec[2] == replid and rec[3] then return rec[3] end
  return nil
end

-- Returns the namespace's incarnation, its quarantine end in Unix ms (0:
-- none ever) and whether it began just now. `now_ms` is the caller's clock;
-- the later of it and the server's clock starts a new quarantine, so a clock
-- behind (or a request delayed on the way) cannot shorten it. `prefix` names
-- the worker keys and `free` the free list; `capacity` is the caller's, for
-- when the record lost its own (nil: only the record's).
local function continuity(meta, now_ms, ttl_ms, margin_ms, prefix, free, capacity)
  local run_id, replid, server_usec = server_info()
  local rec = redis.call('HMGET', meta, 'run_id', 'replid', 'incarnation',
    'quarantine_until_ms', 'ttl_ms', 'capacity')
  local quarantine = tonumber(rec[4] or '0')
  if rec[1] == run_id and rec[2] == replid and rec[3] then
    return rec[3], quarantine, false
  end
  local cap = tonumber(rec[6] or '') or capacity or 0
  for id = 0, cap - 1 do
    redis.call('DEL', prefix .. id)
  end
  redis.call('DEL', free)
  local now = math.max(now_ms, math.floor(server_usec / 1000))
  local longest = math.max(tonumber(rec[5] or '0'), ttl_ms)
  quarantine = math.max(quarantine, now + longest + margin_ms)
  local incarnation = run_id .. ':' .. replid .. ':' .. string.format('%d', math.max(server_usec, now * 1000))
  redis.call('HSET', meta, 'run_id', run_id, 'replid', replid, 'incarnation', incarnation,
    'quarantine_until_ms', string.format('%d', quarantine),
    'ttl_ms', string.format('%d', longest))
  return incarnation, quarantine, true
end
