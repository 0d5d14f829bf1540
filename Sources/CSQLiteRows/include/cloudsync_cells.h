#ifndef CLOUDSYNC_CELLS_H
#define CLOUDSYNC_CELLS_H
#include <sqlite3.h>
#include <stdint.h>

/// What a cell holds.
enum { CLOUDSYNC_CELL_NULL = 0, CLOUDSYNC_CELL_INT = 1, CLOUDSYNC_CELL_DOUBLE = 2, CLOUDSYNC_CELL_TEXT = 3 };

/// One value of a row: an integer, a double, or text at `integer` (its offset) into the chunk's
/// `bytes`, `length` bytes long.
typedef struct {
    union { int64_t integer; double real; };
    int32_t kind;
    int32_t length;
} cloudsync_cell;

/// `count` rows of `columns` cells each, row after row, that the virtual table `cloudsync_cells`
/// gives as its columns c0, c1, … (at most CLOUDSYNC_CELLS_MAX_COLUMNS; a column past `columns` is
/// NULL). One per connection: a writer fills it, runs its `INSERT … SELECT … FROM cloudsync_cells`
/// and empties it.
typedef struct {
    const cloudsync_cell *cells;
    int64_t count;
    int32_t columns;
    const char *bytes;
} cloudsync_cell_chunk;

#define CLOUDSYNC_CELLS_MAX_COLUMNS 16

/// Registers the eponymous virtual table `cloudsync_cells` on `db`, reading `chunk`, which must
/// outlive the connection's use of it. SQLITE_OK, or SQLite's error.
int cloudsync_cells_register(sqlite3 *db, cloudsync_cell_chunk *chunk);
#endif
