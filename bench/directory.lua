-- wrk script for the keyless creator directory GET /v1/public/directory?q=&sort=&page= (docs/api.md):
-- cycles through bench/data/directory.txt (`kind<TAB>q<TAB>sort<TAB>page`: 3-8
-- character fragments of handles, display names and usernames; sort newest|trust|vouches|deals;
-- page 1-3). One X-Forwarded-For per request; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/directory.lua http://127.0.0.1:18080 -- 2 [bench/data/directory.txt]
route = {
   file = "directory.txt",
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f) return "/v1/public/directory?q=" .. urlencode(f[2]) .. "&sort=" .. f[3] .. "&page=" .. f[4] end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
