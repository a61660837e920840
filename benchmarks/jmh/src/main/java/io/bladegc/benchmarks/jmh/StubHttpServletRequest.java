package io.bladegc.benchmarks.jmh;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletConnection;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpUpgradeHandler;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UnsupportedEncodingException;
import java.security.Principal;
import java.util.Collection;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Map;

/**
 * A synchronous GET at {@link #uri}, as {@link io.bladegc.servlet.BladeFilter}'s open-gate path sees it: the four
 * methods that path calls answer from fields, every other method throws, so a benchmark run also proves the path
 * touches nothing else.
 */
final class StubHttpServletRequest implements HttpServletRequest {
    private final String contextPath;
    private final String uri;

    StubHttpServletRequest(String contextPath, String uri) {
        this.contextPath = contextPath;
        this.uri = uri;
    }

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("not needed by the benchmark");
    }

    /** @return {@code null}: never marked admitted, so every call measures the counting path */
    @Override
    public Object getAttribute(String a) {
        return null;
    }

    @Override
    public Enumeration<String> getAttributeNames() {
        throw unsupported();
    }

    @Override
    public String getCharacterEncoding() {
        throw unsupported();
    }

    @Override
    public void setCharacterEncoding(String a) throws UnsupportedEncodingException {
        throw unsupported();
    }

    @Override
    public int getContentLength() {
        throw unsupported();
    }

    @Override
    public long getContentLengthLong() {
        throw unsupported();
    }

    @Override
    public String getContentType() {
        throw unsupported();
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
        throw unsupported();
    }

    @Override
    public String getParameter(String a) {
        throw unsupported();
    }

    @Override
    public Enumeration<String> getParameterNames() {
        throw unsupported();
    }

    @Override
    public String[] getParameterValues(String a) {
        throw unsupported();
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        throw unsupported();
    }

    @Override
    public String getProtocol() {
        throw unsupported();
    }

    @Override
    public String getScheme() {
        throw unsupported();
    }

    @Override
    public String getServerName() {
        throw unsupported();
    }

    @Override
    public int getServerPort() {
        throw unsupported();
    }

    @Override
    public BufferedReader getReader() throws IOException {
        throw unsupported();
    }

    @Override
    public String getRemoteAddr() {
        throw unsupported();
    }

    @Override
    public String getRemoteHost() {
        throw unsupported();
    }

    /** Keeps nothing: the stub request is reused for every call (a container's request map insert is not measured). */
    @Override
    public void setAttribute(String a, Object b) {
        // nothing: see getAttribute
    }

    @Override
    public void removeAttribute(String a) {
        throw unsupported();
    }

    @Override
    public Locale getLocale() {
        throw unsupported();
    }

    @Override
    public Enumeration<Locale> getLocales() {
        throw unsupported();
    }

    @Override
    public boolean isSecure() {
        throw unsupported();
    }

    @Override
    public RequestDispatcher getRequestDispatcher(String a) {
        throw unsupported();
    }

    @Override
    public int getRemotePort() {
        throw unsupported();
    }

    @Override
    public String getLocalName() {
        throw unsupported();
    }

    @Override
    public String getLocalAddr() {
        throw unsupported();
    }

    @Override
    public int getLocalPort() {
        throw unsupported();
    }

    @Override
    public ServletContext getServletContext() {
        throw unsupported();
    }

    @Override
    public AsyncContext startAsync() throws IllegalStateException {
        throw unsupported();
    }

    @Override
    public AsyncContext startAsync(ServletRequest a, ServletResponse b) throws IllegalStateException {
        throw unsupported();
    }

    @Override
    public boolean isAsyncStarted() {
        return false;
    }

    @Override
    public boolean isAsyncSupported() {
        throw unsupported();
    }

    @Override
    public AsyncContext getAsyncContext() {
        throw unsupported();
    }

    @Override
    public DispatcherType getDispatcherType() {
        return DispatcherType.REQUEST;
    }

    @Override
    public String getRequestId() {
        throw unsupported();
    }

    @Override
    public String getProtocolRequestId() {
        throw unsupported();
    }

    @Override
    public ServletConnection getServletConnection() {
        throw unsupported();
    }

    @Override
    public String getAuthType() {
        throw unsupported();
    }

    @Override
    public Cookie[] getCookies() {
        throw unsupported();
    }

    @Override
    public long getDateHeader(String a) {
        throw unsupported();
    }

    @Override
    public String getHeader(String a) {
        throw unsupported();
    }

    @Override
    public Enumeration<String> getHeaders(String a) {
        throw unsupported();
    }

    @Override
    public Enumeration<String> getHeaderNames() {
        throw unsupported();
    }

    @Override
    public int getIntHeader(String a) {
        throw unsupported();
    }

    @Override
    public String getMethod() {
        throw unsupported();
    }

    @Override
    public String getPathInfo() {
        throw unsupported();
    }

    @Override
    public String getPathTranslated() {
        throw unsupported();
    }

    @Override
    public String getContextPath() {
        return contextPath;
    }

    @Override
    public String getQueryString() {
        throw unsupported();
    }

    @Override
    public String getRemoteUser() {
        throw unsupported();
    }

    @Override
    public boolean isUserInRole(String a) {
        throw unsupported();
    }

    @Override
    public Principal getUserPrincipal() {
        throw unsupported();
    }

    @Override
    public String getRequestedSessionId() {
        throw unsupported();
    }

    @Override
    public String getRequestURI() {
        return uri;
    }

    @Override
    public StringBuffer getRequestURL() {
        throw unsupported();
    }

    @Override
    public String getServletPath() {
        throw unsupported();
    }

    @Override
    public HttpSession getSession(boolean a) {
        throw unsupported();
    }

    @Override
    public HttpSession getSession() {
        throw unsupported();
    }

    @Override
    public String changeSessionId() {
        throw unsupported();
    }

    @Override
    public boolean isRequestedSessionIdValid() {
        throw unsupported();
    }

    @Override
    public boolean isRequestedSessionIdFromCookie() {
        throw unsupported();
    }

    @Override
    public boolean isRequestedSessionIdFromURL() {
        throw unsupported();
    }

    @Override
    public boolean authenticate(HttpServletResponse a) throws IOException, ServletException {
        throw unsupported();
    }

    @Override
    public void login(String a, String b) throws ServletException {
        throw unsupported();
    }

    @Override
    public void logout() throws ServletException {
        throw unsupported();
    }

    @Override
    public Collection<Part> getParts() throws IOException, ServletException {
        throw unsupported();
    }

    @Override
    public Part getPart(String a) throws IOException, ServletException {
        throw unsupported();
    }

    @Override
    public <T extends HttpUpgradeHandler> T upgrade(Class<T> a) throws IOException, ServletException {
        throw unsupported();
    }
}
