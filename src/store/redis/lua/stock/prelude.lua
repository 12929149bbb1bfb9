-- Prelude of every script that reads or writes a shard's stock.

-- After shared/master.lua, whose `replication` section `verify` dates the
-- stock with.

-- Indexes left in a queue list ('queue') or a range hash ('range'); -1 when missing.
local function stock_of(key, kind)
  if kind == 'queue' then
    if redis.call('EXISTS', key) == 0 then return -1 end
    return redis.call('LLEN', key)
  end
  local f = redis.call('HMGET', key, 'next', 'last', 'pending_first', 'pending_last')
  if not f[1] then return -1 end
  local n = tonumber(f[2]) - tonumber(f[1]) + 1
  if n < 0 then n = 0 end
  if f[3] then n = n + math.max(tonumber(f[4]) - tonumber(f[3]) + 1, 0) end
  return n
end

-- This server process: a restart gets a new run_id, and a promoted replica has
-- its own. `expected` is the run_id when the caller knows it for certain (a
-- direct connection, which cannot outlive the server process); '' or nil
-- asks, once per script.
local asked_run_id
local function server_run_id(expected)
  if expected and expected ~= '' then return expected end
  if not asked_run_id then
    asked_run_id = info_field(redis.call('INFO', 'server'), 'run_id') or '?'
  end
  return asked_run_id
end

-- This server's replication history: every promotion gets a new master_replid,
-- a former master promoted back from a replica too, which keeps its run_id
-- but holds the data it copied meanwhile. It can change under a live
-- connection, so it is read afresh by every script (above).
local function server_replid()
  return info_field(replication, 'master_replid') or ''
end

-- A refill lock is held on the server that granted it, and only there: its
-- value is the caller's token and that server's name (process and replication
-- history). Copied to another server (a replica promoted, a dataset restored),
-- it is nobody's. A cluster client sends a script again when its answer was
-- lost, after a failover to the new master: a push the old master ran, and
-- served from, but never replicated would otherwise stock the same segment a
-- second time there, where the witness never saw it. Refused, it is a gap.
local function lock_value(token, expected)
  return token .. ' ' .. server_run_id(expected) .. ' ' .. server_replid()
end

local function holds_lock(lock, token, expected)
  return redis.call('GET', lock) == lock_value(token, expected)
end

-- Serves stock only to the server process, in the replication history, that
-- stocked it. A dataset that went back in time (an older RDB or AOF, a restored
-- backup, a lagging replica promoted, a former master promoted back) holds
-- indexes that were already popped, under an old stamp: both stocks of the
-- shard are retired before anything is served.
-- `expected` is as for `server_run_id`. Returns '' when the stock is this
-- server's, else '<stamp found or -> <run_id>', and the number of indexes
-- retired; then the stamp's recorded dispenser and max_limit_id (false when
-- missing), read in the same call for the scripts that need them, and
-- whether the stamp was reset (both stocks are then gone).
local function verify(queue, range, stamp, expected)
  local run_id = server_run_id(expected)
  local replid = server_replid()
  local stamped = redis.call('HMGET', stamp, 'run_id', 'replid', 'kind', 'limit')
  if stamped[1] == run_id and stamped[2] == replid then return '', 0, stamped[3], stamped[4], false end
  local retired = redis.call('LLEN', queue) + math.max(stock_of(range, 'range'), 0)
  redis.call('DEL', queue, range, stamp)
  redis.call('HSET', stamp, 'run_id', run_id, 'replid', replid)
  if (not stamped[1]) and retired == 0 then return '', 0, false, false, true end
  -- A stamp from before replids were recorded: retired once, not a rollback.
  if stamped[1] == run_id and not stamped[2] then return '', retired, false, false, true end
  return (stamped[1] or '-') .. ' ' .. run_id, retired, false, false, true
end

-- Writes `field, value` into `stamp` now, or, when the caller collects the
-- stamp's changes in `pending` to write them in one call, adds them there.
local function stamp_field(stamp, pending, field, value)
  if pending then
    pending[#pending + 1] = field
    pending[#pending + 1] = value
  else
    redis.call('HSET', stamp, field, value)
  end
end

-- Makes `kind` the dispenser that serves the shard, recorded in the stamp. Stock
-- left in the other one (the app's dispenser was changed) is retired unserved.
-- `recorded` is the stamp's dispenser when the caller has read it (`verify`),
-- nil to read it here; `pending` as for `stamp_field`; `emptied` when the
-- caller has just deleted both stocks (nothing is left to retire). Returns
-- the number of indexes retired.
local function switch_to(queue, range, stamp, kind, recorded, pending, emptied)
  if recorded == nil then recorded = redis.call('HGET', stamp, 'kind') end
  if recorded == kind then return 0 end
  local n = 0
  if emptied then
    -- Nothing to count or delete.
  elseif kind == 'range' then
    n = redis.call('LLEN', queue)
    redis.call('DEL', queue)
  else
    n = math.max(stock_of(range, 'range'), 0)
    redis.call('DEL', range)
  end
  stamp_field(stamp, pending, 'kind', kind)
  return n
end

-- Brings a shard in line with its ledger, under the shard's refill lock.
-- `witness` holds the end of the highest segment ever taken from the ledger
-- for the shard ('last'), recorded before any index of it is served and never
-- lowered, not even when stock is retired. `ledger_max` is the ledger's
-- max_id as the refill read it: every index up to it was handed out. A
-- witness behind it means the stock may be older than the ledger (the
-- dataset was replaced inside this server process: SWAPDB, a COPY or MOVE
-- back, DEBUG RELOAD, a VM snapshot), or only that a segment taken meanwhile
-- was never recorded (a crash, a direct take in flight): either way the stock
-- is retired unserved (a gap) and the witness moves up to the ledger.
-- `limit` is the ledger's max_limit_id, recorded for takes to check; stock
-- above `ceiling` (the highest index within it) is retired too. `seen` is the
-- witness's 'last' as the caller read it under the lock (false or nil: none),
-- and `recorded_limit` the stamp's limit as `verify` read it (nil: unread, so
-- it is written whatever it was). A push, which raises the witness itself
-- right after, passes `raising` to skip the witness's write here, and its
-- `pending` stamp changes (see `stamp_field`).
-- Returns the indexes retired as older than the ledger (0 when the shard had
-- no witness yet: retired once, as after an upgrade, not a warning), those
-- retired above the limit, whether a witness existed, and whether both
-- stocks are now gone.
local function settle(queue, range, stamp, witness, ledger_max, limit, ceiling, seen, recorded_limit, raising, pending)
  if recorded_limit ~= limit then stamp_field(stamp, pending, 'limit', limit) end
  if not seen or tonumber(seen) < ledger_max then
    -- Counted only against a witness: without one, none is reported (below).
    local stale = 0
    if seen then stale = redis.call('LLEN', queue) + math.max(stock_of(range, 'range'), 0) end
    redis.call('DEL', queue, range)
    if not raising then
      redis.call('HSET', witness, 'last', string.format('%.0f', ledger_max))
    end
    -- Both stocks are gone: nothing is left above the limit.
    if not seen then return 0, 0, 0, true end
    return stale, 0, 1, true
  end
  local over = 0
  -- Pushes append rising segments, so the queue's last entry is its highest.
  local top = tonumber(redis.call('LRANGE', queue, -1, -1)[1] or '-1') or -1
  if top > ceiling then
    over = over + redis.call('LLEN', queue)
    redis.call('DEL', queue)
  end
  local f = redis.call('HMGET', range, 'last', 'pending_last')
  if (f[1] and tonumber(f[1]) > ceiling) or (f[2] and tonumber(f[2]) > ceiling) then
    over = over + math.max(stock_of(range, 'range'), 0)
    redis.call('DEL', range)
  end
  return 0, over, 1, false
end

-- The scripts that serve a batch of shards in one call (lock.lua, push.lua)
-- run `body(keys, s)` for each shard `s` (1, 2, ...), `keys` being its
-- `per_shard` consecutive KEYS, and answer with the list of their answers.
-- A shard's error (a key of another type, a full memory, a refused
-- condition) becomes that shard's answer, an error reply in its place, and
-- the other shards go on: as when each shard had a script call of its own,
-- what one shard's body wrote before it failed stays, and no other shard
-- is touched by it.
local function for_each_shard(per_shard, body)
  local answers = {}
  for s = 1, #KEYS / per_shard do
    local keys = {}
    for i = 1, per_shard do keys[i] = KEYS[(s - 1) * per_shard + i] end
    local ok, answer = pcall(body, keys, s)
    if not ok then
      -- redis.call raises a Redis error as {err = ...}; Lua's own errors are text.
      if type(answer) ~= 'table' or not answer.err then
        answer = {err = 'ERR idgen: ' .. tostring(answer)}
      end
    end
    answers[s] = answer
  end
  return answers
end
