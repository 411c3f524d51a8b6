# The queenctl container image (docs/deploy.md, "The container image", says how to build and run it).
# Build: docker build -t queen .   (podman: add --format docker, or the HEALTHCHECK is dropped)
# Behind a TLS-intercepting proxy, pass its CA bundle as the optional secret "ca" for the npm ci step only:
#   --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt

# ---- build: compile, then keep the production dependencies only ----
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# The secret is read only when given, so the same file builds where no proxy exists; it never enters a layer.
RUN --mount=type=secret,id=ca --mount=type=cache,target=/root/.npm \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY dashboard ./dashboard
# Source maps and type declarations are never read at run time; dropping them saves about 7 MB.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && find dist node_modules \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -type f -delete

# ---- runtime: the application under /app, run as 65532 ----
FROM node:20-bookworm-slim
# A passwd entry for 65532: the embedded PostgreSQL's initdb refuses a user it cannot look up.
RUN echo 'queen:x:65532:65532:queen:/var/lib/queen:/usr/sbin/nologin' >>/etc/passwd \
 && echo 'queen:x:65532:' >>/etc/group \
 && mkdir -p /var/lib/queen/buffers /var/lib/queen/data \
 && chown -R 65532:65532 /var/lib/queen \
 && chmod 0700 /var/lib/queen/data
WORKDIR /app
COPY --from=build /src/package.json /src/oclif.manifest.json ./
COPY --from=build /src/bin ./bin
COPY --from=build /src/dist ./dist
COPY --from=build /src/node_modules ./node_modules
# queenctl on PATH; it points the CLI at this container's broker (QUEEN_SERVER from PORT) unless told otherwise.
COPY deploy/image/queenctl /usr/local/bin/queenctl
ENV NODE_ENV=production \
    HOME=/var/lib/queen \
    FILE_BUFFER_DIR=/var/lib/queen/buffers \
    QUEEN_DATA_DIR=/var/lib/queen/data
USER 65532:65532
VOLUME ["/var/lib/queen/buffers", "/var/lib/queen/data"]
EXPOSE 6632 6633
# Liveness only (docs/operations.md, "Probes"): /health follows PostgreSQL, and a database blip must not mark the
# container unhealthy. Node's fetch: the image carries no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 6632) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["queenctl"]
CMD ["serve"]
