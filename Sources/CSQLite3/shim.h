#ifndef CLOUDSYNC_SQLITE_SHIM_H
#define CLOUDSYNC_SQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type cloudsync_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics, which
/// take a global mutex on every allocation (pthread_mutex_lock and unlock were 2.7% of an import's
/// store thread); must run before the first connection opens.
static inline int cloudsync_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
