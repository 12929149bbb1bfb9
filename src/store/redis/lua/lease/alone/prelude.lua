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
--
-- Keys can also vanish one at a time: a server with a `maxmemory` limit and
-- an `allkeys-*` policy evicts any key, the worker fences (`last`) included,
-- while the record survives. A lost fence lets a worker's next holder start
-- inside the time its last holder issued in (or still issues in, when the
-- holder's own key went too). So the record also notes (`fenced`) that the
-- fences exist, and a record that says so beside no fences is no proof either.
--
-- And a master can go on answering after a failover: cut off from the
-- Sentinels and its replica but not from every client (a split brain), or
-- paused and resumed once a replica was promoted. Its record still names it
-- and its history, so it would go on renewing its holders' leases while the
-- promoted replica, which sees another history, quarantines and grants the
-- same workers. So a grant or renewal counts only once every replica has it:
-- the script says how many replicas that is, and the client sends `WAIT` for
-- them behind it on the same connection. A write a replica acknowledged was
-- made before that replica was promoted, hence before the quarantine the
-- promoted replica begins; its lease ends before the quarantine does.

local function server_info()
  local server = redis.call('INFO', 'server')
  return info_field(server, 'run_id') or '',
    info_field(replication, 'master_replid') or '',
    tonumber(info_field(server, 'server_time_usec') or '0')
end

-- Whether the record `rec` names this server, its history and an
-- incarnation, and the fences it says exist (`fenced`) are in `last`.
local function kept(rec, run_id, replid, fenced, last)
  return rec[1] == run_id and rec[2] == replid and rec[3] ~= false
    and (fenced ~= '1' or redis.call('EXISTS', last) == 1)
end

-- The incarnation the record names, when it names this server and history
-- and its fences are where it says; nil when Redis cannot prove its state
-- continuous.
local function proven_incarnation(meta, last)
  local run_id, replid = server_info()
  local rec = redis.call('HMGET', meta, 'run_id', 'replid', 'incarnation', 'fenced')
  if kept(rec, run_id, replid, rec[4], last) then return rec[3] end
  return nil
end

-- The replicas connected and in sync (`state=online`): one still loading
-- its first copy (for `repl-diskless-sync-delay`, 5 s by default, and the
-- transfer) acknowledges nothing yet.
local function replicas_in_sync()
  local n, at = 0, 1
  while true do
    local _, found = string.find(replication, ',state=online,', at, true)
    if not found then return n end
    n, at = n + 1, found + 1
  end
end

-- In a Redis Cluster, the replicas the cluster lists for this master: every
-- one it knows, those that failed included, until an operator removes one
-- (CLUSTER FORGET on every node, or `redis-cli --cluster del-node`). Like the
-- Sentinels' list it outlives the master's data; 0 off Cluster.
local function cluster_replicas()
  local cluster = redis.call('INFO', 'cluster')
  if info_field(cluster, 'cluster_enabled') ~= '1' then return 0 end
  return #redis.call('CLUSTER', 'REPLICAS', redis.call('CLUSTER', 'MYID'))
end

-- The replicas a grant or renewal must reach, and the count this namespace
-- has recorded: the most it has seen beside its master (recorded in
-- `replicas`, never lowered by idgen: a master that lost its replica, to a
-- failover or a partition, must still wait for one), those connected now,
-- those the cluster lists for this master, or `floor`, whichever is most.
-- The record goes with the data (FLUSHALL, an older snapshot), so the client
-- sends what outlives it: the replicas the Sentinels know for the master.
-- The one place the count is made: the lease scripts and `status` use it.
local function replicas_needed(meta, floor)
  local connected = tonumber(info_field(replication, 'connected_slaves') or '0') or 0
  local recorded = tonumber(redis.call('HGET', meta, 'replicas') or '0') or 0
  return math.max(recorded, connected, cluster_replicas(), floor), recorded
end

-- `replicas_needed`, the count recorded when it grew, and the replicas in
-- sync now.
local function replicas_required(meta, floor)
  local required, recorded = replicas_needed(meta, floor)
  if required > recorded then
    redis.call('HSET', meta, 'replicas', required)
  end
  return required, replicas_in_sync()
end

-- Before any lease is written: the refusal {'replicas', required, in
-- sync} when the client's `WAIT` (for `offered` replicas) would count fewer
-- than required, or fewer are in sync than required (no write here could
-- be acknowledged); nil to go on, and the number required.
local function replicas_refusal(meta, offered, floor)
  local required, in_sync = replicas_required(meta, floor)
  if required > offered or in_sync < required then
    return {'replicas', required, in_sync}, required
  end
  return nil, required
end

-- Notes in the record that the worker fences exist, after a script raised one.
local function note_fenced(meta)
  redis.call('HSET', meta, 'fenced', '1')
end

-- Returns the namespace's incarnation, its quarantine end in Unix ms (0:
-- none ever) and whether it began just now. `now_ms` is the caller's clock;
-- the later of it and the server's clock starts a new quarantine, so a clock
-- behind (or a request delayed on the way) cannot shorten it. `last` holds
-- the worker fences. `prefix` names
-- the worker keys and `free` the free list; `capacity` is the caller's, for
-- when the record lost its own (nil: only the record's).
local function continuity(meta, last, now_ms, ttl_ms, margin_ms, prefix, free, capacity)
  local run_id, replid, server_usec = server_info()
  local rec = redis.call('HMGET', meta, 'run_id', 'replid', 'incarnation',
    'quarantine_until_ms', 'ttl_ms', 'capacity', 'fenced')
  local quarantine = tonumber(rec[4] or '0')
  if kept(rec, run_id, replid, rec[7], last) then
    return rec[3], quarantine, false
  end
  -- The quarantine outlasts every fence lost with `last`: until a fence is
  -- raised again, there is none to miss.
  if redis.call('EXISTS', last) == 0 then redis.call('HDEL', meta, 'fenced') end
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
