"""A literal set as a credential by a method on a client or builder, or passed as a client's password beside its
user or third to a database client (server/guard/secret_setters.py; HTTPBasicAuth( through server/guard/secret_declarations.py). Values are our own.
"""

from __future__ import annotations

import pytest

from server.guard.redact import redact


@pytest.mark.parametrize("text, value", [
    ('dataSource.setPassword("dspw1234");', "dspw1234"),
    ('ConnectionFactory f = new ConnectionFactory(); f.setPassword("rbpw1234");', "rbpw1234"),
    ('Session session = jsch.getSession("root", host); session.setPassword("jspw1234");', "jspw1234"),
    ('PostgreSQLContainer pg = new PostgreSQLContainer().withPassword("tcpw1234");', "tcpw1234"),
    ('client.SetApiKey("q7Zk2mWp9xL4vR8tY3nB6cJ1");', "q7Zk2mWp9xL4vR8tY3nB6cJ1"),
    ('Client.builder().user("app").password("bdpw1234").build()', "bdpw1234"),
    ('new UsernamePasswordCredentials("user", "jvpw1234")', "jvpw1234"),
    ('new UsernamePasswordAuthenticationToken("user", "jvpw1234")', "jvpw1234"),
    ('var cred = new NetworkCredential("user", "cspw1234", "DOMAIN");', "cspw1234"),
    ('req.SetBasicAuth("admin", "gopw1234")', "gopw1234"),
    ('.withCredentials("user", "blpw1234")', "blpw1234"),
    ('ldap.simple_bind_s("cn=admin,dc=example,dc=org", "ldpw1234")', "ldpw1234"),
    ('HTTPBasicAuth("user", "pypw1234")', "pypw1234"),
    ('DriverManager.getConnection(url, "root", "jdpw1234");', "jdpw1234"),
    ('pymysql.connect("localhost", "root", "mypw12345", "db")', "mypw12345"),
    ('MySQLdb.connect(host, "root", "mypw12345", "db")', "mypw12345"),
    ('new Sequelize("db", "root", "sqpw1234", { dialect: "mysql" })', "sqpw1234"),
    ('Environment.SetEnvironmentVariable("DB_PASSWORD", "nvpw1234")', "nvpw1234"),
    ('viper.SetDefault("password", "vppw1234")', "vppw1234"),
])
def test_the_credential_is_redacted(text, value):
    assert value not in redact(text).text


@pytest.mark.parametrize("text", [
    "ds.setPassword(password);",
    'builder.withToken("Bearer")',  # a token must look random
    'client.setSecretName("my-secret")',
    'view.setPasswordVisible("true")',
    'field.setPasswordPlaceholder("Enter password")',
    'req.setAuthType("basic")',
    'setPassword("hunter22")',  # no receiver: a React state setter or the code's own helper
    'const [password, setPassword] = useState("");',
    "HTTPBasicAuth(user, password)",
    'HTTPBasicAuth("user", "changeme")',
    'cfg.setApiKey("YOUR_API_KEY")',
    "conn.simple_bind_s(dn, pw)",
    "conn = DriverManager.getConnection(url, user, password);",
    'DriverManager.getConnection("jdbc:h2:mem:test", "sa", "")',
    'new Sequelize("db", "root", "changeme")',
    'cache.set("token", "bucket")',  # a generic set's plain word: a cache entry, not a token
])
def test_must_not_fire(text):
    assert redact(text).text == text
