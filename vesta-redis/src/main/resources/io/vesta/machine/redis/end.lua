-- An operator ends a live lease: every entry that carries its fencing token and is still live gets lease expiry
-- 'now', the next generation and a new token, so that its holder's next renewal matches nothing; owner and high
-- water stay, and whoever takes an entry next starts after that high water.
-- KEYS[1]: the hash. ARGV[1]: the token of the lease. ARGV[2]: now (Unix ms). ARGV[3]: the new token.
-- Returns how many entries were ended.
local all = redis.call('HGETALL', KEYS[1])
local ended = 0
for i = 1, #all, 2 do
  if all[i] ~= 'store' then
    local generation, expiry, highWater, token, owner = string.match(all[i + 1], '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
    if token == ARGV[1] and tonumber(expiry) > tonumber(ARGV[2]) then
      redis.call('HSET', KEYS[1], all[i],
        string.format('%d', tonumber(generation) + 1) .. '|' .. ARGV[2] .. '|' .. highWater .. '|' .. ARGV[3] .. '|' .. owner)
      ended = ended + 1
    end
  end
end
return ended
