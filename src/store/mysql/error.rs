//! What a MySQL failure means for idgen: refused access, a TLS failure, an
//! unreachable server, a transaction the server aborted (safe to run again),
//! or something else. Mapped here once, for every query the ledger runs.

use super::MysqlLedger;
use crate::error::Error;

impl MysqlLedger {
    pub(super) fn error(&self, e: &mysql_async::Error) -> Error {
        // Access denied to a user, a database, a table, a column, an operation
        // needing a privilege (SUPER etc.) or a routine; a login without password.
        const ACCESS_DENIED: &[u16] = &[1044, 1045, 1142, 1143, 1227, 1370, 1698];
        // The server refuses plain connections (MySQL 3159, MariaDB 4151:
        // require_secure_transport).
        const TLS_REQUIRED: &[u16] = &[3159, 4151];
        if let Some(tls) = crate::store::tls::failure(crate::store::tls::MYSQL, &self.url, e) {
            return tls;
        }
        let detail = self.url.describe_error(e);
        let tls_error = |hint: &str| Error::Tls {
            backend: "MySQL",
            url: self.url.to_string(),
            detail: detail.clone(),
            hint: hint.into(),
        };
        match e {
            mysql_async::Error::Driver(mysql_async::DriverError::NoClientSslFlagFromServer) => {
                tls_error(
                    "the server does not offer TLS: enable it on the server, or drop require_ssl from the URL",
                )
            }
            mysql_async::Error::Server(server) if TLS_REQUIRED.contains(&server.code) => {
                tls_error("the server accepts only TLS: add require_ssl=true to the MySQL URL")
            }
            // MariaDB refuses a plain login to a server that requires secure
            // transport as a wrong password.
            mysql_async::Error::Server(server) if server.code == 1045 && !self.tls => {
                Error::AccessDenied {
                    backend: "MySQL",
                    url: self.url.to_string(),
                    detail: format!(
                        "{detail} (a server that accepts only TLS refuses this way too: then add require_ssl=true)"
                    ),
                }
            }
            mysql_async::Error::Server(server) if ACCESS_DENIED.contains(&server.code) => {
                Error::AccessDenied {
                    backend: "MySQL",
                    url: self.url.to_string(),
                    detail,
                }
            }
            // ER_LOCK_DEADLOCK (the transaction rolled back: an InnoDB
            // deadlock victim, or on Galera a certification conflict, reported
            // by COMMIT itself or by any statement of a transaction a
            // replicated one aborted), ER_LOCK_WAIT_TIMEOUT (the statement
            // rolled back; the caller's transaction is dropped, so rolled back
            // too) and ER_TRANSACTION_ROLLBACK_DURING_COMMIT (MySQL Group
            // Replication's certification conflict: COMMIT rolled it back):
            // nothing committed.
            mysql_async::Error::Server(server) if matches!(server.code, 1213 | 1205 | 3101) => {
                Error::TransactionAborted {
                    backend: "MySQL",
                    url: self.url.to_string(),
                    detail,
                }
            }
            // ER_UNKNOWN_COM_ERROR, which Galera sends as "WSREP has not yet
            // prepared node for application use": the node is outside the
            // primary component (joining, or cut off) and refused the
            // statement before running it.
            mysql_async::Error::Server(server) if server.code == 1047 => Error::NodeNotReady {
                backend: "MySQL",
                url: self.url.to_string(),
                detail,
            },
            mysql_async::Error::Server(_) => Error::Backend {
                backend: "MySQL",
                url: self.url.to_string(),
                detail,
            },
            _ => Error::Unreachable {
                backend: "MySQL",
                url: self.url.to_string(),
                detail,
            },
        }
    }
}

/// A failure after which the server holds nothing of the attempt: it rolled
/// the transaction back (1213, 1205, 3101) or refused the statement before
/// running it (1047). Running the attempt again is as safe as running it first.
pub(super) fn committed_nothing(error: &Error) -> bool {
    matches!(
        error,
        Error::TransactionAborted { .. } | Error::NodeNotReady { .. }
    )
}
