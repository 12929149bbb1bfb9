-- Records that the ledger was found behind this node's witnesses, for `idgen status`.
-- KEYS: record. ARGV: unix ms, node, shards found behind, indexes skipped.
if not redis.call('HGET', KEYS[1], 'first_ms') then
  redis.call('HSET', KEYS[1], 'first_ms', ARGV[1])
end
redis.call('HSET', KEYS[1], 'last_ms', ARGV[1], 'node', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'shards', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'skipped', ARGV[4])
return 1
