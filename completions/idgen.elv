
use builtin;
use str;

set edit:completion:arg-completer[idgen] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'idgen'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'idgen'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init-app 'Create the schema if missing and seed an app''s 64 shards (idempotent)'
            cand next 'Issue segment IDs for an app'
            cand reload-segments 'Top up every shard whose stock is at or below the threshold (for cron)'
            cand migrate 'Move an app''s stock to another Redis node without repeats'
            cand lease 'Hold a worker ID leased from the namespace and issue snowflake IDs'
            cand inspect-freelist 'Show worker-ID lease state and inconsistencies of a namespace; repair them'
            cand decode 'Unpack the fields of IDs in any supported layout'
            cand status 'Show the deployment''s health; exits 8 when something needs attention'
            cand serve 'Serve segment and snowflake IDs over HTTP (Leaf-compatible), with health and metrics'
            cand app 'List, show and change apps (max_limit_id, step, name) without SQL'
            cand namespace 'List and show worker-ID namespaces: layout, epoch, who holds which worker ID'
            cand config 'Print the effective settings and where each came from (flag, variable, file:line, default), redacted'
            cand man 'Print the man page (roff) to stdout'
            cand completions 'Print a shell completion script to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'idgen;init-app'= {
            cand --app 'App ID, 0..=255 (the low 8 bits of every ID)'
            cand --name 'App name, at most 128 characters; must match on reruns'
            cand --step 'Indexes taken from MySQL per refill when there is no consumption history'
            cand --max-limit-id 'No ID of the app may exceed this (0: no limit); idgen refuses rather than wraps'
            cand --description 'Free text stored in id_alloc.description (at most 255 characters)'
            cand --min-step 'Smallest step the consumption-based sizing may choose [default: --step]'
            cand --max-step 'Largest step the consumption-based sizing may choose [default: 10 x --step]'
            cand --target-interval 'How long a segment should last at the observed rate'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --json 'Print the result as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;next'= {
            cand --app 'App ID, 0..=255'
            cand --gate-pass 'Pick the shard as the Java service does: abs(hashCode) % 64'
            cand -n 'How many IDs to issue (1..=10000000)'
            cand --count 'How many IDs to issue (1..=10000000)'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;reload-segments'= {
            cand --app 'Only this app'
            cand --idle 'Refill a shard when its stock is at or below idle x its last segment [default: 0.2, or the config file''s]'
            cand --jobs 'Batches refilled at once (a batch: up to 32 shards of one app)'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --prune 'Delete stock of apps no longer in id_alloc (otherwise only reported)'
            cand --json 'Print the summary as JSON'
            cand -q 'Print nothing unless a shard failed'
            cand --quiet 'Print nothing unless a shard failed'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;migrate'= {
            cand --app 'The app to move'
            cand --to 'The Redis node to move it to (a name from --redis-node or the config file)'
            cand --from-store 'Move the app out of this embedded store file into the configured Redis + MySQL'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --dry-run 'Print the plan and change nothing'
            cand --yes 'Move without asking'
            cand --json 'Print the plan and the result as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;lease'= {
            cand --namespace 'Holders sharing one layout and epoch'
            cand --layout 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]'
            cand --epoch 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout''s]'
            cand --bits 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)'
            cand --unit 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]'
            cand --fix 'Pin a node field so only the other node bits are leased, e.g. datacenter=3 (repeatable; lease only)'
            cand -n 'Issue N IDs, then release the lease [default: 1]'
            cand --count 'Issue N IDs, then release the lease [default: 1]'
            cand --holder 'Who holds the lease, shown to operators [default: HOSTNAME:PID]'
            cand --ttl 'Lease expiry; renewed every third of it [default: 30s, or the config file''s]'
            cand --assigner 'Where the worker ID comes from'
            cand --max-clock-back 'Largest backward clock step waited out instead of refused'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --stdin 'Coprocess mode: answer each input line N with N IDs'
            cand --json 'Report the lease as JSON Lines on stderr'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;inspect-freelist'= {
            cand --namespace 'The namespace to inspect'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --repair 'Fix what was found (asks first on a terminal)'
            cand --yes 'Repair without asking'
            cand --json 'Print the state as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;decode'= {
            cand --between 'With --guess: the window a plausible moment lies in, e.g. 2020-01-01..2021-01-01; either end may be left out [default: the layout''s epoch..a day from now]'
            cand --layout 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]'
            cand --epoch 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout''s]'
            cand --bits 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)'
            cand --unit 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]'
            cand --fix 'Pin a node field so only the other node bits are leased, e.g. datacenter=3 (repeatable; lease only)'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --json 'Print JSON: one object per ID (JSON Lines); with --guess, one document'
            cand --guess 'List the named layouts under which every ID decodes to a plausible moment, ranked'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;status'= {
            cand --idle 'Warn when a shard''s stock is at or below RATIO x its step'
            cand --warn-stock 'Warn when a shard''s stock is at or below RATIO x its step'
            cand --crit-stock 'Critical when a shard''s stock is at or below RATIO x its step [default: only a shard that is empty and cannot be refilled]'
            cand --format 'Output format'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --check 'Nagios/Icinga plugin mode: one summary line with perfdata; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN'
            cand --json 'Print the report as JSON (same as --format json)'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;serve'= {
            cand --listen 'Address to listen on'
            cand --token-file 'File holding the bearer token clients must send (or IDGEN_SERVE_TOKEN holds it)'
            cand --namespace 'Serve snowflake IDs for a namespace, optionally with its own named layout (repeatable)'
            cand --layout 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]'
            cand --epoch 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout''s]'
            cand --bits 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)'
            cand --unit 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]'
            cand --fix 'Pin a node field so only the other node bits are leased, e.g. datacenter=3 (repeatable; lease only)'
            cand --holder 'Who holds the leases, shown to operators [default: HOSTNAME:PID]'
            cand --ttl 'Lease expiry; renewed every third of it [default: 30s, or the config file''s]'
            cand --max-clock-back 'Largest backward clock step waited out instead of refused'
            cand --max-connections 'Most connections held open at once; more wait in the kernel''s backlog'
            cand --max-requests 'Most requests handled at once; more are refused with 503'
            cand --buffer 'Segment IDs kept ready in memory per app and shard, refilled in the background at half; 0 turns the buffer off. A crash loses them (gaps, never repeats)'
            cand --max-n 'Most IDs one list request may ask for'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --allow-remote 'Allow listening on an address other than loopback'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;app'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List every app: name, step, max_limit_id, shards'
            cand show 'Show one app: its step bounds, limit and every shard''s issued index'
            cand set 'Change an app: raise max_limit_id, change the step and its bounds, rename'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'idgen;app;list'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --json 'Print the apps as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;app;show'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --json 'Print the app as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;app;set'= {
            cand --name 'New name (asks first; at most 128 characters)'
            cand --step 'New step: indexes per refill when there is no consumption history'
            cand --min-step 'New smallest step the consumption-based sizing may choose'
            cand --max-step 'New largest step the consumption-based sizing may choose'
            cand --max-limit-id 'New max_limit_id: only ever raised (0: no limit)'
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -y 'Do not ask before a rename'
            cand --yes 'Do not ask before a rename'
            cand --json 'Print the changed app as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;app;help'= {
            cand list 'List every app: name, step, max_limit_id, shards'
            cand show 'Show one app: its step bounds, limit and every shard''s issued index'
            cand set 'Change an app: raise max_limit_id, change the step and its bounds, rename'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'idgen;app;help;list'= {
        }
        &'idgen;app;help;show'= {
        }
        &'idgen;app;help;set'= {
        }
        &'idgen;app;help;help'= {
        }
        &'idgen;namespace'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List every namespace: layout, worker IDs held and free'
            cand show 'Show one namespace: its layout and epoch, and who holds which worker ID'
            cand delete 'Delete a namespace no one holds a worker ID of (asks first)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'idgen;namespace;list'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --json 'Print the namespaces as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;namespace;show'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --json 'Print the namespace as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;namespace;delete'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -y 'Do not ask first'
            cand --yes 'Do not ask first'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;namespace;help'= {
            cand list 'List every namespace: layout, worker IDs held and free'
            cand show 'Show one namespace: its layout and epoch, and who holds which worker ID'
            cand delete 'Delete a namespace no one holds a worker ID of (asks first)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'idgen;namespace;help;list'= {
        }
        &'idgen;namespace;help;show'= {
        }
        &'idgen;namespace;help;delete'= {
        }
        &'idgen;namespace;help;help'= {
        }
        &'idgen;config'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand --json 'Print the settings as JSON'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;man'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;completions'= {
            cand --redis 'Redis URL of the default node, `main` (with --mysql: the distributed backend)'
            cand --redis-node 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces'
            cand --redis-password-file 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)'
            cand --mysql 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)'
            cand --mysql-password-file 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)'
            cand --store 'The embedded store''s file, used when no server is configured [default: XDG data dir]'
            cand --config 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]'
            cand --dispenser 'How Redis holds ready indexes: queue (the Java service''s lists) or range'
            cand --timeout 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]'
            cand -v 'Explain what the command is doing, on stderr'
            cand --verbose 'Explain what the command is doing, on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'idgen;help'= {
            cand init-app 'Create the schema if missing and seed an app''s 64 shards (idempotent)'
            cand next 'Issue segment IDs for an app'
            cand reload-segments 'Top up every shard whose stock is at or below the threshold (for cron)'
            cand migrate 'Move an app''s stock to another Redis node without repeats'
            cand lease 'Hold a worker ID leased from the namespace and issue snowflake IDs'
            cand inspect-freelist 'Show worker-ID lease state and inconsistencies of a namespace; repair them'
            cand decode 'Unpack the fields of IDs in any supported layout'
            cand status 'Show the deployment''s health; exits 8 when something needs attention'
            cand serve 'Serve segment and snowflake IDs over HTTP (Leaf-compatible), with health and metrics'
            cand app 'List, show and change apps (max_limit_id, step, name) without SQL'
            cand namespace 'List and show worker-ID namespaces: layout, epoch, who holds which worker ID'
            cand config 'Print the effective settings and where each came from (flag, variable, file:line, default), redacted'
            cand man 'Print the man page (roff) to stdout'
            cand completions 'Print a shell completion script to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'idgen;help;init-app'= {
        }
        &'idgen;help;next'= {
        }
        &'idgen;help;reload-segments'= {
        }
        &'idgen;help;migrate'= {
        }
        &'idgen;help;lease'= {
        }
        &'idgen;help;inspect-freelist'= {
        }
        &'idgen;help;decode'= {
        }
        &'idgen;help;status'= {
        }
        &'idgen;help;serve'= {
        }
        &'idgen;help;app'= {
            cand list 'List every app: name, step, max_limit_id, shards'
            cand show 'Show one app: its step bounds, limit and every shard''s issued index'
            cand set 'Change an app: raise max_limit_id, change the step and its bounds, rename'
        }
        &'idgen;help;app;list'= {
        }
        &'idgen;help;app;show'= {
        }
        &'idgen;help;app;set'= {
        }
        &'idgen;help;namespace'= {
            cand list 'List every namespace: layout, worker IDs held and free'
            cand show 'Show one namespace: its layout and epoch, and who holds which worker ID'
            cand delete 'Delete a namespace no one holds a worker ID of (asks first)'
        }
        &'idgen;help;namespace;list'= {
        }
        &'idgen;help;namespace;show'= {
        }
        &'idgen;help;namespace;delete'= {
        }
        &'idgen;help;config'= {
        }
        &'idgen;help;man'= {
        }
        &'idgen;help;completions'= {
        }
        &'idgen;help;help'= {
        }
    ]
    $completions[$command]
}
