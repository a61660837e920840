package io.bladegc.benchmarks.jmh;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.Locale;

/**
 * A response the open-gate path never touches: every method throws, so a benchmark run also proves that
 * {@link io.bladegc.servlet.BladeFilter} writes nothing to an admitted request's response.
 */
final class StubHttpServletResponse implements HttpServletResponse {

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("not needed by the benchmark");
    }

    @Override
    public String getCharacterEncoding() {
        throw unsupported();
    }

    @Override
    public String getContentType() {
        throw unsupported();
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        throw unsupported();
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        throw unsupported();
    }

    @Override
    public void setCharacterEncoding(String a) {
        throw unsupported();
    }

    @Override
    public void setContentLength(int a) {
        throw unsupported();
    }

    @Override
    public void setContentLengthLong(long a) {
        throw unsupported();
    }

    @Override
    public void setContentType(String a) {
        throw unsupported();
    }

    @Override
    public void setBufferSize(int a) {
        throw unsupported();
    }

    @Override
    public int getBufferSize() {
        throw unsupported();
    }

    @Override
    public void flushBuffer() throws IOException {
        throw unsupported();
    }

    @Override
    public void resetBuffer() {
        throw unsupported();
    }

    @Override
    public boolean isCommitted() {
        throw unsupported();
    }

    @Override
    public void reset() {
        throw unsupported();
    }

    @Override
    public void setLocale(Locale a) {
        throw unsupported();
    }

    @Override
    public Locale getLocale() {
        throw unsupported();
    }

    @Override
    public void addCookie(Cookie a) {
        throw unsupported();
    }

    @Override
    public boolean containsHeader(String a) {
        throw unsupported();
    }

    @Override
    public String encodeURL(String a) {
        throw unsupported();
    }

    @Override
    public String encodeRedirectURL(String a) {
        throw unsupported();
    }

    @Override
    public void sendError(int a, String b) throws IOException {
        throw unsupported();
    }

    @Override
    public void sendError(int a) throws IOException {
        throw unsupported();
    }

    @Override
    public void sendRedirect(String a) throws IOException {
        throw unsupported();
    }

    @Override
    public void setDateHeader(String a, long b) {
        throw unsupported();
    }

    @Override
    public void addDateHeader(String a, long b) {
        throw unsupported();
    }

    @Override
    public void setHeader(String a, String b) {
        throw unsupported();
    }

    @Override
    public void addHeader(String a, String b) {
        throw unsupported();
    }

    @Override
    public void setIntHeader(String a, int b) {
        throw unsupported();
    }

    @Override
    public void addIntHeader(String a, int b) {
        throw unsupported();
    }

    @Override
    public void setStatus(int a) {
        throw unsupported();
    }

    @Override
    public int getStatus() {
        throw unsupported();
    }

    @Override
    public String getHeader(String a) {
        throw unsupported();
    }

    @Override
    public Collection<String> getHeaders(String a) {
        throw unsupported();
    }

    @Override
    public Collection<String> getHeaderNames() {
        throw unsupported();
    }
}
