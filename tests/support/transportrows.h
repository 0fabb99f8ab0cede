#pragma once

// Running a whole engine test over both transports (tst_engine, tst_proxyengine): a global data
// row per transport, and the row's transport for the configurations the test makes.

#include "config/runconfig.h"

#include <QTest>

/// initTestCase_data(): one global row per transport, so every test function runs over each and
/// must see the same outcome and error class from both.
inline void addTransportRows()
{
    QTest::addColumn<int>("transport");
    QTest::newRow("native") << int(tb::TransportKind::Native);
    QTest::newRow("qnam") << int(tb::TransportKind::Qnam);
}

/// The transport of the global data row.
inline tb::TransportKind rowTransport()
{
    QFETCH_GLOBAL(int, transport);
    return tb::TransportKind(transport);
}
