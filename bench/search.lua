-- wrk script for the keyless search GET /v1/public/blacklist/check?q= (docs/api.md): cycles
-- through bench/data/search.txt (`kind<TAB>q`: creator handles, connection usernames, numeric ids
-- of connections and blacklist subjects, typos and unknown names that take the suggestion path).
-- One X-Forwarded-For per request; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/search.lua http://127.0.0.1:18080 -- 2 [bench/data/search.txt]
route = {
   file = "search.txt",
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f) return "/v1/public/blacklist/check?q=" .. urlencode(f[2]) end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
