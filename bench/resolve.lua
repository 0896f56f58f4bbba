-- wrk script for the keyless GET /v1/public/resolve (docs/api.md): the `username` lines of
-- bench/data/search.txt as `?username=` and its `id_connection` lines (linked accounts' numeric
-- ids, private ones included, which resolve to nothing) as `?id=`. One X-Forwarded-For per
-- request; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/resolve.lua http://127.0.0.1:18080 -- 2 [bench/data/search.txt]
route = {
   file = "search.txt",
   keep = function(f) return f[1] == "username" or f[1] == "id_connection" end,
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f)
      if f[1] == "username" then return "/v1/public/resolve?username=" .. urlencode(f[2]) end
      return "/v1/public/resolve?id=" .. urlencode(f[2])
   end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
