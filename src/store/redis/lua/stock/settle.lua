-- Brings a shard in line with its ledger while the token holds its refill
-- lock, when a refill took no segment for it (see `settle` in the prelude).
-- KEYS: lock, queue, range, stamp, witness. ARGV: token, the ledger's max_id,
-- max_limit_id, the highest index within it, this server's run_id if known.
-- Returns {stale, over, witnessed (1: the shard had a witness), rollback,
-- retired}, or {-1} when the lock is not ours.
if not holds_lock(KEYS[1], ARGV[1], ARGV[5]) then return {-1} end
local rollback, retired = verify(KEYS[2], KEYS[3], KEYS[4], ARGV[5])
local seen = redis.call('HGET', KEYS[5], 'last')
local stale, over, witnessed = settle(KEYS[2], KEYS[3], KEYS[4], KEYS[5], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), seen)
return {stale, over, witnessed, rollback, retired}
