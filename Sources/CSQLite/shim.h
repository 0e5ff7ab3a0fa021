#ifndef CADENZA_CSQLITE_SHIM_H
#define CADENZA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// sqlite3_bind_text with SQLITE_TRANSIENT (SQLite copies the text), which Swift cannot import as a macro.
static inline int cadenza_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text) {
    return sqlite3_bind_text(statement, index, text, -1, SQLITE_TRANSIENT);
}
#endif
