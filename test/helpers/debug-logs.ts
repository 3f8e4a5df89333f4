// Imported first (before any module that loads the logger) by the tests that check what is logged:
// the logger's base level is read from SIGNET_LOG_LEVEL when its module loads, and Powertools goes
// back to that base level on every invocation, so logger.setLogLevel alone would not hold. The
// logger's level is no Signet setting (no container holds it): this is the one place a test sets it.
process.env.SIGNET_LOG_LEVEL = "DEBUG";
