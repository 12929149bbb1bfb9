# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_idgen_global_optspecs
    string join \n redis= redis-node= redis-password-file= redis-ca= redis-cert= redis-key= mysql= mysql-password-file= mysql-ca= mysql-cert= mysql-key= store= config= dispenser= timeout= v/verbose h/help V/version
end

function __fish_idgen_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_idgen_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_idgen_using_subcommand
    set -l cmd (__fish_idgen_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c idgen -n "__fish_idgen_needs_command" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_needs_command" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_needs_command" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_needs_command" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_needs_command" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_needs_command" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_needs_command" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c idgen -n "__fish_idgen_needs_command" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "init-app" -d 'Create the schema if missing and seed an app\'s 64 shards (idempotent)'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "next" -d 'Issue segment IDs for an app'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "reload-segments" -d 'Top up every shard whose stock is at or below the threshold (for cron)'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "migrate" -d 'Move an app\'s stock to another Redis node without repeats'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "lease" -d 'Hold a worker ID leased from the namespace and issue snowflake IDs'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "inspect-freelist" -d 'Show worker-ID lease state and inconsistencies of a namespace; repair them'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "status" -d 'Show the deployment\'s health; exits 8 when something needs attention'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "serve" -d 'Serve segment and snowflake IDs over HTTP (Leaf-compatible), with health and metrics'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "app" -d 'List, show and change apps (max_limit_id, step, name) without SQL'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "namespace" -d 'List and show worker-ID namespaces: layout, epoch, who holds which worker ID'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "config" -d 'Print the effective settings and where each came from (flag, variable, file:line, default), redacted'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "decode" -d 'Unpack the fields of IDs in any supported layout'
complete -c idgen -n "__fish_idgen_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l app -d 'App ID, 0 to 255 (the low 8 bits of every ID)' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l name -d 'App name, at most 128 characters; must match on reruns' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l step -d 'Indexes taken from MySQL per refill when there is no consumption history' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l max-limit-id -d 'No ID of the app may exceed this (0: no limit); idgen refuses rather than wraps' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l description -d 'Free text stored in id_alloc.description (at most 255 characters)' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l min-step -d 'Smallest step the consumption-based sizing may choose [default: --step]' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l max-step -d 'Largest step the consumption-based sizing may choose [default: 10 x --step]' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l target-interval -d 'How long a segment should last at the observed rate' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -l json -d 'Print the result as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand init-app" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand next" -l app -d 'App ID, 0 to 255' -r
complete -c idgen -n "__fish_idgen_using_subcommand next" -l gate-pass -d 'Pick the shard as the Java service does: abs(hashCode) % 64' -r
complete -c idgen -n "__fish_idgen_using_subcommand next" -s n -l count -d 'How many IDs to issue, 1 to 10000000; written as they are issued' -r
complete -c idgen -n "__fish_idgen_using_subcommand next" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand next" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand next" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand next" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand next" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand next" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand next" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand next" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand next" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l app -d 'Only this app' -r
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l idle -d 'Refill a shard when its stock is at or below idle x its last segment [default: 0.2, or the config file\'s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l jobs -d 'Batches refilled at once (a batch: up to 32 shards of one app)' -r
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l prune -d 'Delete stock of apps no longer in id_alloc (otherwise only reported)'
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -l json -d 'Print the summary as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -s q -l quiet -d 'Print nothing unless a shard failed'
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand reload-segments" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l app -d 'The app to move' -r
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l to -d 'The Redis node to move it to (a name from --redis-node or the config file)' -r -f
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l from-store -d 'Move the app out of this embedded store file into the configured Redis + MySQL' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l dry-run -d 'Print the plan and change nothing'
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l yes -d 'Move without asking'
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -l json -d 'Print the plan and the result as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand migrate" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l namespace -d 'The namespace: lease holders sharing one layout and epoch' -r -f
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l layout -d 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]' -r -f -a "snowflake\t''
snowflake-dc\t''
discord\t''
instagram\t''
mastodon\t''
uid-generator\t''
uid-generator-dc\t''
sonyflake\t''
sonyflake-v2\t''
yitter\t''
tsid\t''
seata\t''
segment\t''
leaf\t''
twitter\t''
mybatis-plus\t''"
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l epoch -d 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout\'s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l bits -d 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l unit -d 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l fix -d 'Pin a worker-ID field so only the other worker bits are leased, e.g. datacenter=3 (repeatable; lease only)' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -s n -l count -d 'Issue N IDs, then release the lease [default: 1]' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l holder -d 'Who holds the lease, shown to operators [default: HOSTNAME:PID]' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l ttl -d 'Lease expiry; renewed every third of it [default: 30s, or the config file\'s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l assigner -d 'Where the worker ID comes from' -r -f -a "lease\t'Lease from the namespace\'s free list; renewed, fenced, released (IDs are reused)'
worker-node\t'A new never-reused ID per start from the WORKER_NODE table (uid-generator style)'"
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l max-clock-back -d 'Largest backward clock step waited out instead of refused' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l stdin -d 'Coprocess mode: answer each input line N with N IDs'
complete -c idgen -n "__fish_idgen_using_subcommand lease" -l json -d 'Report the lease as JSON Lines on stderr'
complete -c idgen -n "__fish_idgen_using_subcommand lease" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand lease" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c idgen -n "__fish_idgen_using_subcommand lease" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l namespace -d 'The namespace: lease holders sharing one layout and epoch' -r -f
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l repair -d 'Fix what was found (asks first on a terminal)'
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l yes -d 'Repair without asking'
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -l json -d 'Print the state as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand inspect-freelist" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand status" -l epoch -d 'The epoch `lease` and `decode` would use (IDGEN_EPOCH), so the default layout is judged as they would run it; not a status option of its own' -r
complete -c idgen -n "__fish_idgen_using_subcommand status" -l idle -l warn-stock -d 'Warn when a shard\'s stock is at or below RATIO x its step' -r
complete -c idgen -n "__fish_idgen_using_subcommand status" -l crit-stock -d 'Critical when a shard\'s stock is at or below RATIO x its step [default: only a shard that is empty and cannot be refilled]' -r
complete -c idgen -n "__fish_idgen_using_subcommand status" -l format -d 'Output format' -r -f -a "text\t'Tables for people'
json\t'The whole report, every finding with its severity'
prometheus\t'Prometheus text exposition, for node_exporter\'s textfile collector'"
complete -c idgen -n "__fish_idgen_using_subcommand status" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand status" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand status" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand status" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand status" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand status" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand status" -l check -d 'Nagios/Icinga plugin mode: one summary line with perfdata; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN'
complete -c idgen -n "__fish_idgen_using_subcommand status" -l json -d 'Print the report as JSON (same as --format json)'
complete -c idgen -n "__fish_idgen_using_subcommand status" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c idgen -n "__fish_idgen_using_subcommand status" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l listen -d 'Address to listen on' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l token-file -d 'File holding the bearer token clients must send (or IDGEN_SERVE_TOKEN holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l namespace -d 'Serve snowflake IDs for a namespace, optionally with its own named layout (repeatable)' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l layout -d 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]' -r -f -a "snowflake\t''
snowflake-dc\t''
discord\t''
instagram\t''
mastodon\t''
uid-generator\t''
uid-generator-dc\t''
sonyflake\t''
sonyflake-v2\t''
yitter\t''
tsid\t''
seata\t''
segment\t''
leaf\t''
twitter\t''
mybatis-plus\t''"
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l epoch -d 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout\'s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l bits -d 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l unit -d 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l fix -d 'Pin a worker-ID field so only the other worker bits are leased, e.g. datacenter=3 (repeatable; lease only)' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l holder -d 'Who holds the leases, shown to operators [default: HOSTNAME:PID]' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l ttl -d 'Lease expiry; renewed every third of it [default: 30s, or the config file\'s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l max-clock-back -d 'Largest backward clock step waited out instead of refused' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l max-connections -d 'Most connections held open at once; more wait in the kernel\'s backlog' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l max-requests -d 'Most requests handled at once; more are refused with 503' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l buffer -d 'Segment IDs kept ready in memory per app and shard, refilled in the background at half; a request that outruns the refills doubles them, up to 64 x N; 0 turns the buffer off. A crash loses them (gaps, never repeats)' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l header-timeout -d 'Longest a connection may take to send a request\'s headers, counted from its opening or its last answer: idle keep-alive connections are closed after it too' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l write-timeout -d 'Longest an answer may wait for a client that does not read it; then the connection ends' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l drain-timeout -d 'On SIGTERM or SIGINT, longest the connections still open may take to finish' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l max-n -d 'Most IDs one list request may ask for' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand serve" -l allow-remote -d 'Allow listening on an address other than loopback'
complete -c idgen -n "__fish_idgen_using_subcommand serve" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand serve" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand serve" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -f -a "list" -d 'List every app: name, step, max_limit_id, shards'
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -f -a "show" -d 'Show one app: its step bounds, limit and every shard\'s issued index'
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -f -a "set" -d 'Change an app: raise max_limit_id, change the step and its bounds, rename'
complete -c idgen -n "__fish_idgen_using_subcommand app; and not __fish_seen_subcommand_from list show set help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -l json -d 'Print the apps as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -l json -d 'Print the app as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l name -d 'New name (asks first; at most 128 characters)' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l step -d 'New step: indexes per refill when there is no consumption history' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l min-step -d 'New smallest step the consumption-based sizing may choose' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l max-step -d 'New largest step the consumption-based sizing may choose' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l max-limit-id -d 'New max_limit_id (0: no limit); lowering it asks first (or takes --yes) and retires stock above it' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -s y -l yes -d 'Do not ask before a rename or a lowered max_limit_id'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -l json -d 'Print the changed app as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from help" -f -a "list" -d 'List every app: name, step, max_limit_id, shards'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one app: its step bounds, limit and every shard\'s issued index'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from help" -f -a "set" -d 'Change an app: raise max_limit_id, change the step and its bounds, rename'
complete -c idgen -n "__fish_idgen_using_subcommand app; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -f -a "list" -d 'List every namespace: layout, worker IDs held and free'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -f -a "show" -d 'Show one namespace: its layout and epoch, and who holds which worker ID'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -f -a "delete" -d 'Delete a namespace no one holds a worker ID of (asks first)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and not __fish_seen_subcommand_from list show delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -l json -d 'Print the namespaces as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -l json -d 'Print the namespace as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do not ask first'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from help" -f -a "list" -d 'List every namespace: layout, worker IDs held and free'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one namespace: its layout and epoch, and who holds which worker ID'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a namespace no one holds a worker ID of (asks first)'
complete -c idgen -n "__fish_idgen_using_subcommand namespace; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c idgen -n "__fish_idgen_using_subcommand config" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand config" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand config" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand config" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand config" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand config" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand config" -l json -d 'Print the settings as JSON'
complete -c idgen -n "__fish_idgen_using_subcommand config" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand config" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand config" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand completions" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand completions" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand completions" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand completions" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l between -d 'With --guess: the window a plausible moment lies in, e.g. 2020-01-01..2021-01-01; either end may be left out [default: the layout\'s epoch..a day from now]' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l candidates -d 'With --guess: how many of the best-ranked layouts decode every ID; the others show their first ID only [default: all for up to 10 IDs, else 1]' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l layout -d 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]' -r -f -a "snowflake\t''
snowflake-dc\t''
discord\t''
instagram\t''
mastodon\t''
uid-generator\t''
uid-generator-dc\t''
sonyflake\t''
sonyflake-v2\t''
yitter\t''
tsid\t''
seata\t''
segment\t''
leaf\t''
twitter\t''
mybatis-plus\t''"
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l epoch -d 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout\'s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l bits -d 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l unit -d 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l fix -d 'Pin a worker-ID field so only the other worker bits are leased, e.g. datacenter=3 (repeatable; lease only)' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l redis -d 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l redis-node -d 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l redis-password-file -d 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l redis-ca -d 'CA certificate (PEM) to verify rediss:// servers by, instead of the system\'s roots' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l redis-cert -d 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l redis-key -d 'Private key (PEM) of --redis-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l mysql -d 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l mysql-password-file -d 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l mysql-ca -d 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l mysql-cert -d 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l mysql-key -d 'Private key (PEM) of --mysql-cert' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l store -d 'The embedded store\'s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l dispenser -d 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service\'s lists) or range [default: queue]' -r -f -a "queue\t''
range\t''"
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l timeout -d 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]' -r
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l config -d 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]' -r -F
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l json -d 'Print JSON: one object per ID (JSON Lines); with --guess, one document'
complete -c idgen -n "__fish_idgen_using_subcommand decode" -l guess -d 'List the named layouts under which every ID decodes to a plausible moment, ranked'
complete -c idgen -n "__fish_idgen_using_subcommand decode" -s v -l verbose -d 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)'
complete -c idgen -n "__fish_idgen_using_subcommand decode" -s h -l help -d 'Print help'
complete -c idgen -n "__fish_idgen_using_subcommand decode" -s V -l version -d 'Print version'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "init-app" -d 'Create the schema if missing and seed an app\'s 64 shards (idempotent)'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "next" -d 'Issue segment IDs for an app'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "reload-segments" -d 'Top up every shard whose stock is at or below the threshold (for cron)'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "migrate" -d 'Move an app\'s stock to another Redis node without repeats'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "lease" -d 'Hold a worker ID leased from the namespace and issue snowflake IDs'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "inspect-freelist" -d 'Show worker-ID lease state and inconsistencies of a namespace; repair them'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "status" -d 'Show the deployment\'s health; exits 8 when something needs attention'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "serve" -d 'Serve segment and snowflake IDs over HTTP (Leaf-compatible), with health and metrics'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "app" -d 'List, show and change apps (max_limit_id, step, name) without SQL'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "namespace" -d 'List and show worker-ID namespaces: layout, epoch, who holds which worker ID'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "config" -d 'Print the effective settings and where each came from (flag, variable, file:line, default), redacted'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "decode" -d 'Unpack the fields of IDs in any supported layout'
complete -c idgen -n "__fish_idgen_using_subcommand help; and not __fish_seen_subcommand_from init-app next reload-segments migrate lease inspect-freelist status serve app namespace config completions decode help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c idgen -n "__fish_idgen_using_subcommand help; and __fish_seen_subcommand_from app" -f -a "list" -d 'List every app: name, step, max_limit_id, shards'
complete -c idgen -n "__fish_idgen_using_subcommand help; and __fish_seen_subcommand_from app" -f -a "show" -d 'Show one app: its step bounds, limit and every shard\'s issued index'
complete -c idgen -n "__fish_idgen_using_subcommand help; and __fish_seen_subcommand_from app" -f -a "set" -d 'Change an app: raise max_limit_id, change the step and its bounds, rename'
complete -c idgen -n "__fish_idgen_using_subcommand help; and __fish_seen_subcommand_from namespace" -f -a "list" -d 'List every namespace: layout, worker IDs held and free'
complete -c idgen -n "__fish_idgen_using_subcommand help; and __fish_seen_subcommand_from namespace" -f -a "show" -d 'Show one namespace: its layout and epoch, and who holds which worker ID'
complete -c idgen -n "__fish_idgen_using_subcommand help; and __fish_seen_subcommand_from namespace" -f -a "delete" -d 'Delete a namespace no one holds a worker ID of (asks first)'
