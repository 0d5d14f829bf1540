#ifndef CLOUDSYNC_ROWS_H
#define CLOUDSYNC_ROWS_H
#include <sqlite3.h>
#include <stdint.h>

/// One row of `metric`, as the import builds it: ids, dates, the value and the flags. `version` and
/// `extra_length` below 0 stand for NULL; `extra_offset` is into the chunk's `extra` bytes.
typedef struct {
    int64_t type, start, end, source;
    double value;
    int64_t unit, category, device, version;
    int64_t extra_offset;
    int32_t extra_length;
    int32_t is_repeat;
    int64_t created, superseded;
    int32_t summary, origin;
} cloudsync_row;

/// A chunk of rows the virtual table `cloudsync_rows` gives, one per connection: the import fills
/// `rows` and runs `INSERT … SELECT … FROM cloudsync_rows` once per chunk.
typedef struct {
    const cloudsync_row *rows;
    int64_t count;
    const char *extra;
    int64_t run;
} cloudsync_chunk;

/// Registers the eponymous virtual table `cloudsync_rows` on `db`, reading `chunk`, which must
/// outlive the connection's use of it. SQLITE_OK, or SQLite's error.
int cloudsync_rows_register(sqlite3 *db, cloudsync_chunk *chunk);
#endif
