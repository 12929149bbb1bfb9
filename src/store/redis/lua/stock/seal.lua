-- Seals a shard on this node for a move to another node, while the token
-- holds the shard's refill lock (so a refill in flight here has finished, or
-- lost its lock and will be refused): from now on this node stocks nothing
-- for the shard, whatever the ledger's route says (push.lua and witness.lua
-- refuse), until a move back admits it (admit.lua). The witness is read in
-- the same step, so nothing stocked here can be missing from it.
-- KEYS: lock, witness. ARGV: token, the node the shard moves to.
-- Returns {1, witness ('': none)}, or {-1} when the lock is not ours.
if not holds_lock(KEYS[1], ARGV[1]) then return {-1} end
redis.call('HSET', KEYS[2], 'moved_to', ARGV[2])
return {1, redis.call('HGET', KEYS[2], 'last') or ''}
