# The API and the translator agent in one image.
#   docker build -t translation-rooms .      (docker compose up builds it too)

# Build: every dependency, dev ones included (the TypeScript compiler and Nest's CLI build the apps).
FROM node:20.19.5-bookworm-slim AS build
WORKDIR /app
ENV SCARF_ANALYTICS=false
# npm 11 runs only the install scripts approved in package.json's allowScripts
RUN npm install --global npm@11.19.1
COPY package.json package-lock.json ./
RUN npm ci --include=dev --no-audit --no-fund
COPY tsconfig.json nest-cli.json ./
COPY libs ./libs
COPY apps ./apps
RUN npm run build

# Run: production dependencies only, the compiled output, as the unprivileged `node` user.
FROM node:20.19.5-bookworm-slim AS run
WORKDIR /app
ENV NODE_ENV=production SCARF_ANALYTICS=false
# The API's V8 flags (scripts/server-node-flags.mjs), for every node process of the image: a ceiling on
# the young generation, not an allocation.
ENV NODE_OPTIONS=--max-semi-space-size=32
RUN npm install --global npm@11.19.1
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/apps/api/apps/api/src/main.js"]
