-- Deletes a shard's stock while the token holds its refill lock.
-- KEYS: lock, stock. ARGV: token, kind.
-- Returns the indexes dropped, or -1 when the lock is not ours.
if not holds_lock(KEYS[1], ARGV[1]) then return -1 end
local n = stock_of(KEYS[2], ARGV[2])
if n < 0 then n = 0 end
redis.call('DEL', KEYS[2])
return n
