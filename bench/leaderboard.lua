-- wrk script for the keyless referral leaderboard GET /referrals/leaderboard?period= (docs/api.md)
--, `all` and `month` in turn. The lines of bench/data/badge.txt only give each request
-- its own X-Forwarded-For (the leaderboard's bucket is 2/s per address); see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/leaderboard.lua http://127.0.0.1:18080 -- 2 [bench/data/badge.txt]
route = {
   file = "badge.txt",
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f, i) return "/referrals/leaderboard?period=" .. (i % 2 == 0 and "all" or "month") end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
