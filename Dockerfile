# fastrapi: multi-stage image (not built in this repository's CI: no Docker engine there).
# docker build -t fastrapi . && docker run -p 1337:1337 -e DATABASE_URL=postgres://… -e JWT_SECRET=… -e API_TOKEN_SALT=… fastrapi

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only (tsx runs the TypeScript sources; there is no build step).
RUN npm ci --omit=dev && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=1337 HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json config.ts tsconfig.json ./
COPY compiler ./compiler
COPY src ./src
COPY models ./models
# A Strapi project's models are usually mounted instead: -v /path/to/project:/project -e MODELS_DIR=/project
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 1337
# Strapi's health route: 204 while the node runs (readiness, with the database: /_ready).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||1337)+'/_health').then(r=>process.exit(r.status===204?0:1),()=>process.exit(1))"
# node directly (not npm) so SIGTERM reaches the server, which drains in-flight requests (SHUTDOWN_TIMEOUT).
CMD ["node", "--initial-old-space-size=128", "--import", "tsx", "src/main.ts"]
