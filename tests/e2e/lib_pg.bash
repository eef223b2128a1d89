# shellcheck shell=bash
# A private PostgreSQL 15 server for the database tests (tests/e2e/db.sh,
# tests/e2e/report_agentic.sh): sourced, never run.
#   pg_start DIR   starts Debian's postgresql 15 with its data in DIR/pg, a unix
#                  socket there and no TCP (as nobody when run as root: initdb
#                  refuses root); sets pg_url (libpq URI); returns 1, printing
#                  why, when it cannot start
#   pg_stop DIR    stops it (immediate), if it runs
pgbin=/usr/lib/postgresql/15/bin
pgrun=()
pg_url=
pg_stop() {
	if [ -f "$1/pg/data/postmaster.pid" ]; then
		"${pgrun[@]}" "$pgbin/pg_ctl" -D "$1/pg/data" -m immediate -w stop >/dev/null 2>&1
	fi
}
pg_start() {
	local dir=$1 port
	[ -x "$pgbin/initdb" ] || { echo "postgresql 15 is not installed"; return 1; }
	mkdir -p "$dir/pg"
	if [ "$(id -u)" = 0 ]; then # initdb refuses root: run the server as nobody
		chmod 755 "$dir"
		chown nobody "$dir/pg" || return 1
		pgrun=(runuser -u nobody --)
	fi
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"${pgrun[@]}" "$pgbin/initdb" -D "$dir/pg/data" -U ib --auth=trust -E UTF8 --locale=C \
		>"$dir/pg/initdb.log" 2>&1 || { tail -3 "$dir/pg/initdb.log"; return 1; }
	"${pgrun[@]}" "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 60 \
		-o "-p $port -k $dir/pg -c listen_addresses= -c fsync=off" start >/dev/null 2>&1 ||
		{ tail -3 "$dir/pg/server.log"; return 1; }
	pg_url="postgresql://ib@/postgres?host=$dir/pg&port=$port"
}
