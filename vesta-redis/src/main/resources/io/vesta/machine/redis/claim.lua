-- Takes machine IDs, all of them or none: each must still hold exactly the entry the claimer read (none, an expired
-- lease, or its own owner's), and the server and its store mark must be the ones it read, so that the high water it
-- starts after is the one committed at this moment.
-- KEYS[1]: the hash. ARGV[1]: the server instance read (run_id.master_replid, see read.lua). ARGV[2]: the store mark
-- read ('' for none). ARGV[3]: the store mark to write. Then triples: machine ID, the entry read ('' for none), the
-- entry to write.
-- Returns 'ok', 'store' (the server or its mark changed: read again) or 'changed' (another node was first).
local info = redis.call('INFO', 'server')
local replication = redis.call('INFO', 'replication')
local instance = string.match(info, 'run_id:(%w+)') .. '.' .. (string.match(replication, 'master_replid:(%w+)') or '')
if instance ~= ARGV[1] or (redis.call('HGET', KEYS[1], 'store') or '') ~= ARGV[2] then
  return 'store'
end
for i = 4, #ARGV, 3 do
  if (redis.call('HGET', KEYS[1], ARGV[i]) or '') ~= ARGV[i + 1] then
    return 'changed'
  end
end
redis.call('HSET', KEYS[1], 'store', ARGV[3])
for i = 4, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
end
return 'ok'
