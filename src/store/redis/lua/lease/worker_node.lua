-- KEYS: meta. ARGV: a worker-node ID MySQL's WORKER_NODE handed out, or 0 to
-- only read. Raises the namespace's witness of the highest such ID (never
-- lowers it) and returns the one it held before ('0': none), as stored. A
-- MySQL gone back in time hands its IDs out again; this witness, written
-- before an ID is used, lets the assigner move past them.
local held = redis.call('HGET', KEYS[1], 'worker_node') or '0'
if (tonumber(ARGV[1]) or 0) > (tonumber(held) or 0) then
  redis.call('HSET', KEYS[1], 'worker_node', ARGV[1])
end
return held
