-- Appends a segment to a shard's stock while the token holds the refill lock,
-- and records the shard's max_limit_id and dispenser (the ledger's) beside it.
-- KEYS: lock, queue, range, stamp. ARGV: token, first, last, kind, max_limit_id,
-- this server's run_id if known ('': ask), then (queue) the index strings.
-- Returns {stock, rollback, retired, switched}; stock is -1 when the lock is not
-- ours, -2 when a range already holds a current and a pending segment;
-- switched counts the other dispenser's indexes retired. A segment at or below
-- the last one pushed to the shard is not stocked again.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1, '', 0, 0} end
local rollback, retired = verify(KEYS[2], KEYS[3], KEYS[4], ARGV[6])
-- A shard's segments only ever rise (the ledger hands them out in order), so a
-- segment at or below the last one pushed is this push sent again (a cluster
-- client retrying after a lost answer): answered, never stocked twice.
local pushed = tonumber(redis.call('HGET', KEYS[4], 'pushed') or '-1')
if tonumber(ARGV[2]) <= pushed then
  local stock = KEYS[2]
  if ARGV[4] == 'range' then stock = KEYS[3] end
  return {math.max(stock_of(stock, ARGV[4]), 0), rollback, retired, 0}
end
redis.call('HSET', KEYS[4], 'pushed', ARGV[3])
redis.call('HSET', KEYS[4], 'limit', ARGV[5])
local switched = switch_to(KEYS[2], KEYS[3], KEYS[4], ARGV[4])
if ARGV[4] == 'queue' then
  for i = 7, #ARGV, 1000 do
    redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
  return {redis.call('LLEN', KEYS[2]), rollback, retired, switched}
end
local f = redis.call('HMGET', KEYS[3], 'next', 'last', 'pending_first', 'pending_last')
local current_empty = (not f[1]) or tonumber(f[1]) > tonumber(f[2])
if current_empty and not f[3] then
  redis.call('HSET', KEYS[3], 'next', ARGV[2], 'last', ARGV[3])
elseif current_empty then
  redis.call('HSET', KEYS[3], 'next', f[3], 'last', f[4], 'pending_first', ARGV[2], 'pending_last', ARGV[3])
elseif not f[3] then
  redis.call('HSET', KEYS[3], 'pending_first', ARGV[2], 'pending_last', ARGV[3])
else
  return {-2, rollback, retired, switched}
end
return {stock_of(KEYS[3], 'range'), rollback, retired, switched}
