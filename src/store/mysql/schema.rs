//! The MySQL/MariaDB tables: the Java service's `id_alloc`, idgen's own, and
//! uid-generator's `WORKER_NODE`. Created if missing; never altered.

/// The schema version idgen's own tables are at. Version 2 added the durable
/// lease tables (`idgen_namespace`, `idgen_worker_lease`), version 3 each
/// app's recorded dispenser (`idgen_dispenser`).
pub const SCHEMA_VERSION: u32 = 3;

/// `id_alloc` exactly as the Java segment service defines it.
pub(super) const ID_ALLOC_DDL: &str = "CREATE TABLE IF NOT EXISTS `id_alloc` (
  `app_id` int(11) NOT NULL,
  `app_name` varchar(128) NOT NULL,
  `max_id` bigint(20) NOT NULL DEFAULT '1',
  `shard_id` int(11) NOT NULL,
  `step` int(11) NOT NULL DEFAULT '1000',
  `description` varchar(255) DEFAULT NULL,
  `create_time` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,
  `update_time` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  `max_limit_id` bigint(20) NOT NULL DEFAULT '0',
  PRIMARY KEY (`app_id`,`shard_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";

pub(super) const IDGEN_DDL: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS `idgen_schema` (
  `id` tinyint NOT NULL PRIMARY KEY,
  `version` int NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE IF NOT EXISTS `idgen_app` (
  `app_id` int(11) NOT NULL PRIMARY KEY,
  `min_step` bigint NOT NULL,
  `max_step` bigint NOT NULL,
  `target_secs` int NOT NULL,
  `create_time` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE IF NOT EXISTS `idgen_dispenser` (
  `app_id` int(11) NOT NULL PRIMARY KEY,
  `kind` varchar(8) NOT NULL,
  `update_time` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE IF NOT EXISTS `idgen_refill` (
  `app_id` int(11) NOT NULL,
  `shard_id` int(11) NOT NULL,
  `loaded_at_ms` bigint NOT NULL,
  `loaded` bigint NOT NULL,
  `stock_after` bigint NOT NULL,
  PRIMARY KEY (`app_id`,`shard_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE IF NOT EXISTS `idgen_adopted` (
  `app_id` int(11) NOT NULL PRIMARY KEY,
  `source` varchar(512) NOT NULL,
  `sealed_at_ms` bigint NOT NULL,
  `create_time` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE IF NOT EXISTS `idgen_namespace` (
  `name` varchar(64) NOT NULL PRIMARY KEY,
  `signature` varchar(512) NOT NULL,
  `capacity` bigint NOT NULL,
  `created_ms` bigint NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE IF NOT EXISTS `idgen_worker_lease` (
  `namespace` varchar(64) NOT NULL,
  `worker` bigint NOT NULL,
  `token` varchar(64) NOT NULL,
  `holder` varchar(255) NOT NULL,
  `fence_ms` bigint NOT NULL,
  `renewals` bigint NOT NULL DEFAULT 0,
  `update_time` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`namespace`, `worker`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE IF NOT EXISTS `idgen_route` (
  `app_id` int(11) NOT NULL PRIMARY KEY,
  `node` varchar(64) NOT NULL,
  `target_node` varchar(64) DEFAULT NULL,
  `phase` varchar(16) DEFAULT NULL,
  `update_time` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
];

/// uid-generator's `WORKER_NODE` table, as its DisposableWorkerIdAssigner expects.
pub(super) const WORKER_NODE_DDL: &str = "CREATE TABLE IF NOT EXISTS `WORKER_NODE` (
  `ID` bigint NOT NULL AUTO_INCREMENT,
  `HOST_NAME` varchar(64) NOT NULL,
  `PORT` varchar(64) NOT NULL,
  `TYPE` int NOT NULL,
  `LAUNCH_DATE` date NOT NULL,
  `MODIFIED` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  `CREATED` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (`ID`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";
