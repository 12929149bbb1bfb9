-- Retires a shard's stock unless this server process stocked it.
-- KEYS: queue, range, stamp. ARGV: this server's run_id if known ('': ask).
-- Returns {rollback ('' or 'old new'), retired}.
local rollback, retired = verify(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
return {rollback, retired}
