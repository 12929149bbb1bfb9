-- Appends a segment to each of one or more shards' stocks while its token
-- holds the shard's refill lock, and records the shard's max_limit_id and
-- dispenser (the ledger's) beside it. One script serves a batch of shards:
-- the per-call cost of a script (the master check, the prelude) is paid once
-- for all of them, and each shard is still pushed on its own (see
-- `for_each_shard`).
-- KEYS: per shard, its lock, queue, range, stamp, witness, and (a queue push
-- in a transaction) its push buffer. ARGV: kind, this server's run_id if
-- known ('': ask), the number of keys per shard (5, or 6 with a buffer), then
-- per shard: token, first, last, max_limit_id, the highest index within
-- max_limit_id, '1' to release the lock once the push ends the shard's
-- refill (else '0'); then, for a queue push without a buffer (alone in its
-- script: a cluster's), the index strings.
-- Each buffer is a list the same MULTI emptied and filled with the token, then
-- the segment's indexes, by one plain RPUSH or RESTORE just before this
-- script: no Lua string is made per index, which costs more than the RPUSH
-- itself. The script takes the token off and checks it and the count, so it
-- moves only this push's own segment even if the MULTI did not hold (a command
-- refused before it, or an ACL without MULTI, runs them one by one, and
-- another refiller's push may fill the buffer in between). It moves the buffer
-- into the queue or deletes it, on every path, so nothing a push buffered is
-- ever left for anyone (a refused script on a writable replica leaves it
-- there, to be emptied by the next push's DEL).
-- Returns one answer per shard, in order, each an error for that shard alone
-- or {stock, rollback, retired, switched, stale, over, witnessed, unlocked};
-- stock is -1 when the lock is not ours, -2 when a range already holds a
-- current and a pending segment, -3 when the segment is at or below the
-- shard's witness (then `witnessed` is the witness: the ledger handed out
-- indexes it had handed out before, so none is stocked), -4 when the shard
-- moved to another node (then `witnessed` names it: see seal.lua). stale and
-- over count indexes retired by `settle` (stock older than the ledger, stock
-- above the limit). Asked to release the lock, the push deletes it on every
-- answer but -3 (the refill takes from the ledger again, under the same
-- lock) and -1 (not ours). An 8th field says whether the lock is no longer
-- the caller's to release (1: released here, or not ours), so the caller
-- follows this rule without restating it.

-- Appends the list `buffer` (`buffered` indexes, as the script checked) to
-- the list `queue`, in order, and deletes `buffer`, moving the fewer indexes
-- through Lua: when the queue holds fewer than the buffer (a refill tops up
-- what is left), its indexes go in front of the buffer and the buffer is
-- renamed to the queue (an empty queue costs one RENAME); else the buffer's go
-- after the queue's. `held` is the queue's length when the caller knows it
-- (nil: read here). Returns the queue's length after.
local function append_buffer(queue, buffer, buffered, held)
  held = held or redis.call('LLEN', queue)
  if buffered == 0 then return held end
  if held <= buffered then
    if held > 0 then
      local left = redis.call('LRANGE', queue, 0, -1)
      local reversed = {}
      for i = #left, 1, -1 do reversed[#reversed + 1] = left[i] end
      -- LPUSH puts each value in front in turn, so the reversed order lands
      -- as the queue had it.
      for i = 1, #reversed, 1000 do
        redis.call('LPUSH', buffer, unpack(reversed, i, math.min(i + 999, #reversed)))
      end
    end
    redis.call('RENAME', buffer, queue)
    return held + buffered
  end
  local items = redis.call('LRANGE', buffer, 0, -1)
  for i = 1, #items, 1000 do
    redis.call('RPUSH', queue, unpack(items, i, math.min(i + 999, #items)))
  end
  redis.call('DEL', buffer)
  return held + buffered
end

local kind, run_id, per_shard = ARGV[1], ARGV[2], tonumber(ARGV[3])
local shards = #KEYS / per_shard

-- One shard's push: `k` its keys, its arguments from ARGV[at + 1], and its
-- index strings (a queue push without a buffer) ARGV[from..to].
local function push(k, at, from, to)
  local token, first_text, last_text = ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  local max_limit_id, ceiling = ARGV[at + 4], tonumber(ARGV[at + 5])
  local release = ARGV[at + 6] == '1'
  local buffer = k[6]
  local function drop_buffer()
    if buffer then redis.call('DEL', buffer) end
  end
  local first, last = tonumber(first_text), tonumber(last_text)
  -- The answer of a push that ends the shard's refill: the lock goes with it
  -- when the caller asked.
  local function done(answer)
    if release then redis.call('DEL', k[1]) end
    answer[8] = release and 1 or 0
    return answer
  end
  if buffer and (redis.call('LPOP', buffer) ~= token or redis.call('LLEN', buffer) ~= last - first + 1) then
    drop_buffer()
    return redis.error_reply('ERR idgen: the push buffer does not hold this push\'s segment ' .. first_text .. '-' .. last_text)
  end
  if kind == 'queue' and not buffer and (shards ~= 1 or to - from + 1 ~= last - first + 1) then
    return redis.error_reply('ERR idgen: a queue push without a buffer must be alone in its script and carry its segment ' .. first_text .. '-' .. last_text)
  end
  -- The witness: the node the shard moved to, its highest segment and that
  -- segment's token. Nothing below changes it before it is written.
  local w = redis.call('HMGET', k[5], 'moved_to', 'last', 'token')
  -- A push sent again (a cluster client after a lost answer or a timeout)
  -- finds its own segment recorded under its own token: the witness survives
  -- retirement and outlives the lock, so such a push is answered, never
  -- stocked twice. Returns the stock it answers with, or nil for any other push.
  local function resent_stock()
    if w[3] ~= token or last ~= tonumber(w[2]) then return nil end
    local stock = k[2]
    if kind == 'range' then stock = k[3] end
    return math.max(stock_of(stock, kind), 0)
  end
  if not holds_lock(k[1], token, run_id) then
    drop_buffer()
    -- Sent again after it released its lock.
    local stock = release and resent_stock()
    if stock then return {stock, '', 0, 0, 0, 0, '', 1} end
    return {-1, '', 0, 0, 0, 0, '', 1}
  end
  if w[1] then
    drop_buffer()
    return done({-4, '', 0, 0, 0, 0, w[1]})
  end
  local rollback, retired, recorded_kind, limit = verify(k[2], k[3], k[4], run_id)
  if w[2] and first <= tonumber(w[2]) then
    -- Sent again to this server while it held its lock; sent again to another
    -- server (a failover), the lock refused it above.
    drop_buffer()
    local stock = resent_stock()
    if stock then return done({stock, rollback, retired, 0, 0, 0, ''}) end
    return {-3, rollback, retired, 0, 0, 0, w[2], 0}
  end
  -- The stamp's changes, written in one call below.
  local pending = {}
  local stale, over, _, emptied = settle(k[2], k[3], k[4], k[5], first - 1, max_limit_id, ceiling, w[2], limit, true, pending)
  -- Recorded before a single index of the segment can be served.
  redis.call('HSET', k[5], 'last', last_text, 'token', token)
  local switched = switch_to(k[2], k[3], k[4], kind, recorded_kind, pending, emptied)
  if #pending > 0 then redis.call('HSET', k[4], unpack(pending)) end
  if kind == 'queue' then
    local held
    if buffer then
      -- A queue `settle` emptied holds nothing, and switching to the queue
      -- leaves it as it is.
      held = append_buffer(k[2], buffer, last - first + 1, emptied and 0 or nil)
    else
      for i = from, to, 1000 do
        redis.call('RPUSH', k[2], unpack(ARGV, i, math.min(i + 999, to)))
      end
      held = redis.call('LLEN', k[2])
    end
    return done({held, rollback, retired, switched, stale, over, ''})
  end
  drop_buffer()
  local f = redis.call('HMGET', k[3], 'next', 'last', 'pending_first', 'pending_last')
  local current_empty = (not f[1]) or tonumber(f[1]) > tonumber(f[2])
  if current_empty and not f[3] then
    redis.call('HSET', k[3], 'next', first_text, 'last', last_text)
  elseif current_empty then
    redis.call('HSET', k[3], 'next', f[3], 'last', f[4], 'pending_first', first_text, 'pending_last', last_text)
  elseif not f[3] then
    redis.call('HSET', k[3], 'pending_first', first_text, 'pending_last', last_text)
  else
    return done({-2, rollback, retired, switched, stale, over, ''})
  end
  return done({stock_of(k[3], 'range'), rollback, retired, switched, stale, over, ''})
end

-- The index strings of a queue push without a buffer follow the shards'
-- arguments; such a push is alone in its script.
local indexes_from = 3 + shards * 6 + 1
return for_each_shard(per_shard, function(k, s)
  return push(k, 3 + (s - 1) * 6, indexes_from, #ARGV)
end)
