-- One atomic look at a Vesta machine-ID hash: the server instance (its run_id, which a restart changes, and its
-- master_replid, which every promotion changes, so that a primary demoted and promoted back without a restart is
-- another instance too), its uptime in seconds and its second_repl_offset (-1 unless it was promoted from a replica;
-- '' on a server too old to say), so that a reader can tell a restart or a failover, after which acknowledged writes
-- may be gone; then every field and value of the hash.
-- KEYS[1]: the hash.
local info = redis.call('INFO', 'server')
local replication = redis.call('INFO', 'replication')
local instance = string.match(info, 'run_id:(%w+)') .. '.' .. (string.match(replication, 'master_replid:(%w+)') or '')
local result = { instance, string.match(info, 'uptime_in_seconds:(%d+)'),
  string.match(replication, 'second_repl_offset:(%-?%d+)') or '' }
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all do
  result[#result + 1] = all[i]
end
return result
