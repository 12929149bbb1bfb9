-- Records a segment taken straight from the ledger for one caller (no stock,
-- no lock) in the shard's witness, before any index of it is served.
-- KEYS: witness. ARGV: first, last.
-- Returns '' when recorded, or the witness when the segment is at or below it
-- (the ledger handed those indexes out before, or another process recorded a
-- later segment first): then nothing is recorded and the segment is not served;
-- or 'moved NODE' when the shard moved to NODE (see seal.lua): nothing recorded.
local f = redis.call('HMGET', KEYS[1], 'last', 'moved_to')
if f[2] then return 'moved ' .. f[2] end
local seen = f[1]
if seen and tonumber(ARGV[1]) <= tonumber(seen) then return seen end
redis.call('HSET', KEYS[1], 'last', ARGV[2], 'token', 'direct')
return ''
