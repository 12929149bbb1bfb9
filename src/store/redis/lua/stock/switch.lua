-- Makes `kind` the shard's dispenser while the token holds its refill lock
-- (`idgen app set --dispenser`); the other dispenser's stock is retired.
-- KEYS: lock, queue, range, stamp. ARGV: token, kind.
-- Returns {switched, rollback, retired}; switched is -1 when the lock is not ours.
if not holds_lock(KEYS[1], ARGV[1]) then return {-1, '', 0} end
local rollback, retired = verify(KEYS[2], KEYS[3], KEYS[4])
return {switch_to(KEYS[2], KEYS[3], KEYS[4], ARGV[2]), rollback, retired}
