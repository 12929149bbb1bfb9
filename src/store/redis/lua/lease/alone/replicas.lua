-- Redis alone, for `status`: the replicas every lease in the namespace must
-- reach and those in sync now, counted as a grant counts them; writes
-- nothing. KEYS: meta. ARGV: the fewest replicas the client knows the master
-- has (see replicas_needed). Returns {required, in sync}.
local required = replicas_needed(KEYS[1], tonumber(ARGV[1]))
return {required, replicas_in_sync()}
