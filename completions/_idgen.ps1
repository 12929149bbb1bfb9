
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'idgen' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'idgen'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'idgen' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init-app', 'init-app', [CompletionResultType]::ParameterValue, 'Create the schema if missing and seed an app''s 64 shards (idempotent)')
            [CompletionResult]::new('next', 'next', [CompletionResultType]::ParameterValue, 'Issue segment IDs for an app')
            [CompletionResult]::new('reload-segments', 'reload-segments', [CompletionResultType]::ParameterValue, 'Top up every shard whose stock is at or below the threshold (for cron)')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Move an app''s stock to another Redis node without repeats')
            [CompletionResult]::new('lease', 'lease', [CompletionResultType]::ParameterValue, 'Hold a worker ID leased from the namespace and issue snowflake IDs')
            [CompletionResult]::new('inspect-freelist', 'inspect-freelist', [CompletionResultType]::ParameterValue, 'Show worker-ID lease state and inconsistencies of a namespace; repair them')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the deployment''s health; exits 8 when something needs attention')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve segment and snowflake IDs over HTTP (Leaf-compatible), with health and metrics')
            [CompletionResult]::new('app', 'app', [CompletionResultType]::ParameterValue, 'List, show and change apps (max_limit_id, step, name) without SQL')
            [CompletionResult]::new('namespace', 'namespace', [CompletionResultType]::ParameterValue, 'List and show worker-ID namespaces: layout, epoch, who holds which worker ID')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print the effective settings and where each came from (flag, variable, file:line, default), redacted')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Unpack the fields of IDs in any supported layout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'idgen;init-app' {
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'App ID, 0 to 255 (the low 8 bits of every ID)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'App name, at most 128 characters; must match on reruns')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Indexes taken from MySQL per refill when there is no consumption history')
            [CompletionResult]::new('--max-limit-id', '--max-limit-id', [CompletionResultType]::ParameterName, 'No ID of the app may exceed this (0: no limit); idgen refuses rather than wraps')
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'Free text stored in id_alloc.description (at most 255 characters)')
            [CompletionResult]::new('--min-step', '--min-step', [CompletionResultType]::ParameterName, 'Smallest step the consumption-based sizing may choose [default: --step]')
            [CompletionResult]::new('--max-step', '--max-step', [CompletionResultType]::ParameterName, 'Largest step the consumption-based sizing may choose [default: 10 x --step]')
            [CompletionResult]::new('--target-interval', '--target-interval', [CompletionResultType]::ParameterName, 'How long a segment should last at the observed rate')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;next' {
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'App ID, 0 to 255')
            [CompletionResult]::new('--gate-pass', '--gate-pass', [CompletionResultType]::ParameterName, 'Pick the shard as the Java service does: abs(hashCode) % 64')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many IDs to issue, 1 to 10000000; written as they are issued')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'How many IDs to issue, 1 to 10000000; written as they are issued')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;reload-segments' {
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'Only this app')
            [CompletionResult]::new('--idle', '--idle', [CompletionResultType]::ParameterName, 'Refill a shard when its stock is at or below idle x its last segment [default: 0.2, or the config file''s]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Batches refilled at once (a batch: up to 32 shards of one app)')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--prune', '--prune', [CompletionResultType]::ParameterName, 'Delete stock of apps no longer in id_alloc (otherwise only reported)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the summary as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing unless a shard failed')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing unless a shard failed')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;migrate' {
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'The app to move')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The Redis node to move it to (a name from --redis-node or the config file)')
            [CompletionResult]::new('--from-store', '--from-store', [CompletionResultType]::ParameterName, 'Move the app out of this embedded store file into the configured Redis + MySQL')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Move without asking')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the plan and the result as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;lease' {
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: lease holders sharing one layout and epoch')
            [CompletionResult]::new('--layout', '--layout', [CompletionResultType]::ParameterName, 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]')
            [CompletionResult]::new('--epoch', '--epoch', [CompletionResultType]::ParameterName, 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout''s]')
            [CompletionResult]::new('--bits', '--bits', [CompletionResultType]::ParameterName, 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)')
            [CompletionResult]::new('--unit', '--unit', [CompletionResultType]::ParameterName, 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Pin a worker-ID field so only the other worker bits are leased, e.g. datacenter=3 (repeatable; lease only)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Issue N IDs, then release the lease [default: 1]')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Issue N IDs, then release the lease [default: 1]')
            [CompletionResult]::new('--holder', '--holder', [CompletionResultType]::ParameterName, 'Who holds the lease, shown to operators [default: HOSTNAME:PID]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Lease expiry; renewed every third of it [default: 30s, or the config file''s]')
            [CompletionResult]::new('--assigner', '--assigner', [CompletionResultType]::ParameterName, 'Where the worker ID comes from')
            [CompletionResult]::new('--max-clock-back', '--max-clock-back', [CompletionResultType]::ParameterName, 'Largest backward clock step waited out instead of refused')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--stdin', '--stdin', [CompletionResultType]::ParameterName, 'Coprocess mode: answer each input line N with N IDs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Report the lease as JSON Lines on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;inspect-freelist' {
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: lease holders sharing one layout and epoch')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Fix what was found (asks first on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Repair without asking')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the state as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;status' {
            [CompletionResult]::new('--epoch', '--epoch', [CompletionResultType]::ParameterName, 'The epoch `lease` and `decode` would use (IDGEN_EPOCH), so the default layout is judged as they would run it; not a status option of its own')
            [CompletionResult]::new('--idle', '--idle', [CompletionResultType]::ParameterName, 'Warn when a shard''s stock is at or below RATIO x its step')
            [CompletionResult]::new('--warn-stock', '--warn-stock', [CompletionResultType]::ParameterName, 'Warn when a shard''s stock is at or below RATIO x its step')
            [CompletionResult]::new('--crit-stock', '--crit-stock', [CompletionResultType]::ParameterName, 'Critical when a shard''s stock is at or below RATIO x its step [default: only a shard that is empty and cannot be refilled]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Nagios/Icinga plugin mode: one summary line with perfdata; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (same as --format json)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address to listen on')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'File holding the bearer token clients must send (or IDGEN_SERVE_TOKEN holds it)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Serve snowflake IDs for a namespace, optionally with its own named layout (repeatable)')
            [CompletionResult]::new('--layout', '--layout', [CompletionResultType]::ParameterName, 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]')
            [CompletionResult]::new('--epoch', '--epoch', [CompletionResultType]::ParameterName, 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout''s]')
            [CompletionResult]::new('--bits', '--bits', [CompletionResultType]::ParameterName, 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)')
            [CompletionResult]::new('--unit', '--unit', [CompletionResultType]::ParameterName, 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Pin a worker-ID field so only the other worker bits are leased, e.g. datacenter=3 (repeatable; lease only)')
            [CompletionResult]::new('--holder', '--holder', [CompletionResultType]::ParameterName, 'Who holds the leases, shown to operators [default: HOSTNAME:PID]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Lease expiry; renewed every third of it [default: 30s, or the config file''s]')
            [CompletionResult]::new('--max-clock-back', '--max-clock-back', [CompletionResultType]::ParameterName, 'Largest backward clock step waited out instead of refused')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Most connections held open at once; more wait in the kernel''s backlog')
            [CompletionResult]::new('--max-requests', '--max-requests', [CompletionResultType]::ParameterName, 'Most requests handled at once; more are refused with 503')
            [CompletionResult]::new('--buffer', '--buffer', [CompletionResultType]::ParameterName, 'Segment IDs kept ready in memory per app and shard, refilled in the background at half; a request that outruns the refills doubles them, up to 64 x N; 0 turns the buffer off. A crash loses them (gaps, never repeats)')
            [CompletionResult]::new('--header-timeout', '--header-timeout', [CompletionResultType]::ParameterName, 'Longest a connection may take to send a request''s headers, counted from its opening or its last answer: idle keep-alive connections are closed after it too')
            [CompletionResult]::new('--write-timeout', '--write-timeout', [CompletionResultType]::ParameterName, 'Longest an answer may wait for a client that does not read it; then the connection ends')
            [CompletionResult]::new('--drain-timeout', '--drain-timeout', [CompletionResultType]::ParameterName, 'On SIGTERM or SIGINT, longest the connections still open may take to finish')
            [CompletionResult]::new('--max-n', '--max-n', [CompletionResultType]::ParameterName, 'Most IDs one list request may ask for')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--allow-remote', '--allow-remote', [CompletionResultType]::ParameterName, 'Allow listening on an address other than loopback')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;app' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every app: name, step, max_limit_id, shards')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one app: its step bounds, limit and every shard''s issued index')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Change an app: raise max_limit_id, change the step and its bounds, rename')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'idgen;app;list' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the apps as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;app;show' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the app as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;app;set' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'New name (asks first; at most 128 characters)')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'New step: indexes per refill when there is no consumption history')
            [CompletionResult]::new('--min-step', '--min-step', [CompletionResultType]::ParameterName, 'New smallest step the consumption-based sizing may choose')
            [CompletionResult]::new('--max-step', '--max-step', [CompletionResultType]::ParameterName, 'New largest step the consumption-based sizing may choose')
            [CompletionResult]::new('--max-limit-id', '--max-limit-id', [CompletionResultType]::ParameterName, 'New max_limit_id (0: no limit); lowering it asks first (or takes --yes) and retires stock above it')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask before a rename or a lowered max_limit_id')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask before a rename or a lowered max_limit_id')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the changed app as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;app;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every app: name, step, max_limit_id, shards')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one app: its step bounds, limit and every shard''s issued index')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Change an app: raise max_limit_id, change the step and its bounds, rename')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'idgen;app;help;list' {
            break
        }
        'idgen;app;help;show' {
            break
        }
        'idgen;app;help;set' {
            break
        }
        'idgen;app;help;help' {
            break
        }
        'idgen;namespace' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every namespace: layout, worker IDs held and free')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one namespace: its layout and epoch, and who holds which worker ID')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a namespace no one holds a worker ID of (asks first)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'idgen;namespace;list' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the namespaces as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;namespace;show' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the namespace as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;namespace;delete' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask first')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask first')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;namespace;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every namespace: layout, worker IDs held and free')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one namespace: its layout and epoch, and who holds which worker ID')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a namespace no one holds a worker ID of (asks first)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'idgen;namespace;help;list' {
            break
        }
        'idgen;namespace;help;show' {
            break
        }
        'idgen;namespace;help;delete' {
            break
        }
        'idgen;namespace;help;help' {
            break
        }
        'idgen;config' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the settings as JSON')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;completions' {
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;decode' {
            [CompletionResult]::new('--between', '--between', [CompletionResultType]::ParameterName, 'With --guess: the window a plausible moment lies in, e.g. 2020-01-01..2021-01-01; either end may be left out [default: the layout''s epoch..a day from now]')
            [CompletionResult]::new('--candidates', '--candidates', [CompletionResultType]::ParameterName, 'With --guess: how many of the best-ranked layouts decode every ID; the others show their first ID only [default: all for up to 10 IDs, else 1]')
            [CompletionResult]::new('--layout', '--layout', [CompletionResultType]::ParameterName, 'Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]')
            [CompletionResult]::new('--epoch', '--epoch', [CompletionResultType]::ParameterName, 'Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout''s]')
            [CompletionResult]::new('--bits', '--bits', [CompletionResultType]::ParameterName, 'Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)')
            [CompletionResult]::new('--unit', '--unit', [CompletionResultType]::ParameterName, 'Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Pin a worker-ID field so only the other worker bits are leased, e.g. datacenter=3 (repeatable; lease only)')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS')
            [CompletionResult]::new('--redis-node', '--redis-node', [CompletionResultType]::ParameterName, 'Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces')
            [CompletionResult]::new('--redis-password-file', '--redis-password-file', [CompletionResultType]::ParameterName, 'File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)')
            [CompletionResult]::new('--redis-ca', '--redis-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify rediss:// servers by, instead of the system''s roots')
            [CompletionResult]::new('--redis-cert', '--redis-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)')
            [CompletionResult]::new('--redis-key', '--redis-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --redis-cert')
            [CompletionResult]::new('--mysql', '--mysql', [CompletionResultType]::ParameterName, 'MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)')
            [CompletionResult]::new('--mysql-password-file', '--mysql-password-file', [CompletionResultType]::ParameterName, 'File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)')
            [CompletionResult]::new('--mysql-ca', '--mysql-ca', [CompletionResultType]::ParameterName, 'CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true')
            [CompletionResult]::new('--mysql-cert', '--mysql-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)')
            [CompletionResult]::new('--mysql-key', '--mysql-key', [CompletionResultType]::ParameterName, 'Private key (PEM) of --mysql-cert')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'The embedded store''s file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]')
            [CompletionResult]::new('--dispenser', '--dispenser', [CompletionResultType]::ParameterName, 'Dispenser that init-app records for a new app, and that next tries first: queue (the Java service''s lists) or range [default: queue]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON: one object per ID (JSON Lines); with --guess, one document')
            [CompletionResult]::new('--guess', '--guess', [CompletionResultType]::ParameterName, 'List the named layouts under which every ID decodes to a plausible moment, ranked')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'idgen;help' {
            [CompletionResult]::new('init-app', 'init-app', [CompletionResultType]::ParameterValue, 'Create the schema if missing and seed an app''s 64 shards (idempotent)')
            [CompletionResult]::new('next', 'next', [CompletionResultType]::ParameterValue, 'Issue segment IDs for an app')
            [CompletionResult]::new('reload-segments', 'reload-segments', [CompletionResultType]::ParameterValue, 'Top up every shard whose stock is at or below the threshold (for cron)')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Move an app''s stock to another Redis node without repeats')
            [CompletionResult]::new('lease', 'lease', [CompletionResultType]::ParameterValue, 'Hold a worker ID leased from the namespace and issue snowflake IDs')
            [CompletionResult]::new('inspect-freelist', 'inspect-freelist', [CompletionResultType]::ParameterValue, 'Show worker-ID lease state and inconsistencies of a namespace; repair them')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the deployment''s health; exits 8 when something needs attention')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve segment and snowflake IDs over HTTP (Leaf-compatible), with health and metrics')
            [CompletionResult]::new('app', 'app', [CompletionResultType]::ParameterValue, 'List, show and change apps (max_limit_id, step, name) without SQL')
            [CompletionResult]::new('namespace', 'namespace', [CompletionResultType]::ParameterValue, 'List and show worker-ID namespaces: layout, epoch, who holds which worker ID')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print the effective settings and where each came from (flag, variable, file:line, default), redacted')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Unpack the fields of IDs in any supported layout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'idgen;help;init-app' {
            break
        }
        'idgen;help;next' {
            break
        }
        'idgen;help;reload-segments' {
            break
        }
        'idgen;help;migrate' {
            break
        }
        'idgen;help;lease' {
            break
        }
        'idgen;help;inspect-freelist' {
            break
        }
        'idgen;help;status' {
            break
        }
        'idgen;help;serve' {
            break
        }
        'idgen;help;app' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every app: name, step, max_limit_id, shards')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one app: its step bounds, limit and every shard''s issued index')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Change an app: raise max_limit_id, change the step and its bounds, rename')
            break
        }
        'idgen;help;app;list' {
            break
        }
        'idgen;help;app;show' {
            break
        }
        'idgen;help;app;set' {
            break
        }
        'idgen;help;namespace' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every namespace: layout, worker IDs held and free')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one namespace: its layout and epoch, and who holds which worker ID')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a namespace no one holds a worker ID of (asks first)')
            break
        }
        'idgen;help;namespace;list' {
            break
        }
        'idgen;help;namespace;show' {
            break
        }
        'idgen;help;namespace;delete' {
            break
        }
        'idgen;help;config' {
            break
        }
        'idgen;help;completions' {
            break
        }
        'idgen;help;decode' {
            break
        }
        'idgen;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
