-- Records the last dataset change a script detected, for `idgen status`.
-- KEYS: record. ARGV: unix ms, node, previous stamp ('-': none), run_id, indexes retired.
-- Shards that report the same new run_id add up into one record.
if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[4] then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'first_ms', ARGV[1], 'previous', ARGV[3], 'run_id', ARGV[4])
end
redis.call('HSET', KEYS[1], 'last_ms', ARGV[1], 'node', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'shards', 1)
redis.call('HINCRBY', KEYS[1], 'retired', ARGV[5])
return 1
